import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operations } from './catalogue.js';
import { inputLimits } from './schemas/common.js';

// Issue #22: unbounded request fields let one request cost the server anything (20,000 table names, 100,000
// facets) or reach SQLite with numbers it cannot store (created_at 1e308). Every field a client sends is bounded.

type Schema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  items?: Schema | Schema[];
  prefixItems?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
};

/**
 * Deliberate exceptions, by field: a document's text and a file's bytes are bounded by the body limit alone, and
 * a metadata value may be any finite number (strictNumbers refuses Infinity and NaN everywhere).
 */
const exempt = /^body(\[\])?\.(content|text_content|file_content|metadata\.\*)$/;

function unbounded(schema: Schema, path: string, found: string[]): void {
  if (exempt.test(path.replace(/^\S+ /, ''))) return;
  const has = (...keys: string[]) => keys.some((k) => schema[k] !== undefined);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes('string') && !has('maxLength', 'enum', 'const')) found.push(`${path}: string without maxLength`);
  if (types.includes('array') && !has('maxItems')) found.push(`${path}: array without maxItems`);
  if ((types.includes('integer') || types.includes('number')) && !has('enum', 'const')) {
    if (!has('minimum', 'exclusiveMinimum')) found.push(`${path}: number without minimum`);
    if (!has('maximum', 'exclusiveMaximum')) found.push(`${path}: number without maximum`);
  }
  if (types.includes('object') && schema.patternProperties && !has('maxProperties')) {
    found.push(`${path}: map without maxProperties`);
  }
  for (const [key, child] of Object.entries(schema.properties ?? {})) unbounded(child, `${path}.${key}`, found);
  for (const child of Object.values(schema.patternProperties ?? {})) unbounded(child, `${path}.*`, found);
  const items = Array.isArray(schema.items) ? schema.items : schema.items ? [schema.items] : [];
  for (const child of [...items, ...(schema.prefixItems ?? [])]) unbounded(child, `${path}[]`, found);
  for (const child of [...(schema.anyOf ?? []), ...(schema.allOf ?? [])]) unbounded(child, path, found);
}

test('every field of every request is bounded: strings, lists, maps and numbers', () => {
  const found: string[] = [];
  for (const operation of operations) {
    for (const part of ['params', 'query', 'body'] as const) {
      const schema = (operation as unknown as Record<string, Schema | undefined>)[part];
      if (schema) unbounded(schema, `${operation.id} ${part}`, found);
    }
  }
  assert.deepEqual(found, []);
});

test('an id that can be created can be read: path parameters are bounded by the path id limit', () => {
  for (const operation of operations) {
    const params = (operation as { params?: Schema }).params?.properties ?? {};
    for (const [name, schema] of Object.entries(params)) {
      assert.ok(
        typeof schema.maxLength === 'number' && schema.maxLength <= inputLimits.pathId,
        `${operation.id} params.${name} must be at most ${inputLimits.pathId} characters`,
      );
    }
  }
});
