import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operationById, operations } from './catalogue.js';
import { grpcMessages } from './grpc.js';
import { buildOpenApi } from './openapi.js';
import { dereference } from './openapi-components.js';
import { playgroundFields } from './playground-fields.js';
import { createValidator } from './test-support.js';

type Json = Record<string, unknown>;
interface Node {
  description?: string;
  default?: unknown;
  required?: string[];
  properties?: Record<string, Node>;
  items?: Node;
  anyOf?: Node[];
  allOf?: Node[];
}
interface Result {
  score: number;
  chunks: { score: number }[];
  distance?: number;
  table?: string;
  joined?: unknown[];
  strategies?: Record<string, number>;
}
interface Answer {
  results: Result[];
  ranking?: string;
  notes?: string[];
}

// Read with every component inlined, so the checks reach the named schemas too.
const doc = dereference(buildOpenApi(operations, { version: 'test' }));
const entries = Object.values(doc.paths as Record<string, Record<string, Json>>).flatMap((p) => Object.values(p));
const entryOf = (id: string) => entries.find((e) => e.operationId === id) as Json;
const bodySchema = (id: string) =>
  ((entryOf(id).requestBody as Json).content as Record<string, { schema: Node }>)['application/json']?.schema;
const parameter = (id: string, name: string) =>
  (entryOf(id).parameters as { name: string; required: boolean }[]).find((p) => p.name === name);

/** Every object schema under a schema, with its path. */
function* objects(node: Node | undefined, path: string): Generator<[string, Node]> {
  if (!node || typeof node !== 'object') return;
  if (node.properties) yield [path, node];
  for (const [name, child] of Object.entries(node.properties ?? {})) yield* objects(child, `${path}.${name}`);
  yield* objects(node.items, `${path}[]`);
  for (const part of [...(node.anyOf ?? []), ...(node.allOf ?? [])]) yield* objects(part, path);
}

test('the reference marks nothing required that has a default', () => {
  for (const entry of entries) {
    for (const p of entry.parameters as { name: string; required: boolean; schema: Node }[]) {
      if (p.schema.default !== undefined) assert.equal(p.required, false, `${String(entry.operationId)} ${p.name}`);
    }
    const body = entry.requestBody ? bodySchema(String(entry.operationId)) : undefined;
    for (const [path, object] of objects(body, String(entry.operationId))) {
      for (const name of object.required ?? []) {
        assert.equal(object.properties?.[name]?.default, undefined, `${path}.${name} has a default and is required`);
      }
    }
  }
  for (const operation of operations) {
    for (const field of playgroundFields(operation)) {
      if (field.in !== 'path' && field.default !== undefined && field.kind !== 'select') {
        assert.equal(field.required, false, `${operation.id}.${field.name}`);
      }
    }
  }
});

test('a search whose server requires the query declares it required, and only those', () => {
  assert.ok(bodySchema('search-text')?.required?.includes('query'));
  assert.ok(bodySchema('search-fuzzy')?.required?.includes('query'));
  assert.equal(parameter('simple-search', 'query')?.required, true);
  // Vector and hybrid take a vector instead; smart search routes a point without a query to geo.
  for (const id of ['search-vector', 'search-hybrid', 'search-smart', 'search-faceted', 'search-multi-table']) {
    assert.ok(!bodySchema(id)?.required?.includes('query'), id);
  }
});

test('each search has its own plausible example answer, valid against its schema in the OpenAPI document', () => {
  const strict = createValidator({ coerce: false, dialect: '2020-12' });
  for (const entry of entries) {
    for (const [status, response] of Object.entries(entry.responses as Record<string, Json>)) {
      const content = (response.content as Record<string, Json> | undefined)?.['application/json'];
      for (const example of Object.values((content?.examples ?? {}) as Record<string, { value: unknown }>)) {
        const schema = content?.schema as Parameters<typeof strict>[0];
        assert.equal(strict(schema, example.value), null, `${String(entry.operationId)} ${status}`);
      }
    }
    // Every operation shows an example of its success answer.
    const success = String(Math.min(...Object.keys(entry.responses as Json).map(Number)));
    const content = ((entry.responses as Record<string, Json>)[success]?.content as Record<string, Json> | undefined)?.[
      'application/json'
    ];
    if (content) assert.ok(content.examples, `${String(entry.operationId)} has no example answer`);
  }
  const answer = (id: Parameters<typeof operationById>[0]) => operationById(id).examples[0].response.body as Answer;
  const searches = operations.filter((o) => o.category === 'search').map((o) => o.examples[0].response.body);
  const copies = searches.filter(
    (body, i) => searches.findIndex((b) => JSON.stringify(b) === JSON.stringify(body)) !== i,
  );
  assert.equal(copies.length, 0, 'two searches share an example answer');
  for (const r of answer('search-vector').results) assert.ok(r.score >= 0 && r.score <= 1, 'cosine scores');
  for (const r of answer('search-smart').results) assert.ok(r.score >= 0 && r.score <= 1, 'semantic route scores');
  assert.ok(answer('search-hybrid').ranking);
  for (const r of answer('search-hybrid').results) assert.ok(r.score >= 0 && r.score <= 1, 'fused scores');
  for (const r of answer('search-geo').results) assert.equal(typeof r.distance, 'number');
  assert.ok(answer('search-fuzzy').notes?.some((n) => n.includes('→')));
  for (const r of answer('search-multi-table').results) assert.ok(r.table && r.joined);
  for (const r of answer('search-recommendations').results) assert.ok(r.strategies);
});

test('descriptions start with a capital letter, in operations, request fields and gRPC messages', () => {
  const lower = /^[a-z]/;
  for (const operation of operations) {
    assert.doesNotMatch(operation.description, lower, operation.id);
    for (const [location, schema] of [
      ['body', operation.body],
      ['query', operation.query],
      ['params', operation.params],
    ] as const) {
      for (const [path, object] of objects(schema as Node | undefined, `${operation.id}.${location}`)) {
        for (const [name, property] of Object.entries(object.properties ?? {})) {
          assert.doesNotMatch(property.description ?? '', lower, `${path}.${name}`);
        }
      }
    }
  }
  for (const message of grpcMessages) {
    for (const field of message.fields)
      assert.doesNotMatch(field.description ?? '', lower, `${message.name}.${field.name}`);
  }
});

test('every playground field has a hint, and a required select sends the option it shows', () => {
  for (const operation of operations) {
    for (const field of playgroundFields(operation)) {
      assert.ok(field.placeholder.trim().length > 0, `${operation.id}.${field.name} has no placeholder`);
      if (field.kind === 'select' && field.required) {
        assert.equal(field.default, field.options?.[0], `${operation.id}.${field.name}`);
      }
    }
  }
  const operation = playgroundFields(operationById('update-acl')).find((f) => f.name === 'operation');
  assert.equal(operation?.default, 'add');
});
