import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { consistencyHeader, minSeqHeader, operations, sequenceHeader, type CatalogueOperation } from '@godb/contract';
import { exampleRequest } from '../../test-support/example-request.js';
import { startTestServer, superAdmin, type TestServer } from '../../test-support/server.js';
import { startTestCluster, type TestCluster } from '../../test-support/test-cluster.js';

// Issue #37: cluster mode's headers (X-GoDB-Consistency and X-GoDB-Min-Seq on requests, X-GoDB-Seq on answers) are
// declared in the OpenAPI document on exactly the operations the server applies them to. What the server does is
// observed, not assumed: each operation's catalogue example is sent as a client would.

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  $ref?: string;
}
interface Entry {
  parameters: Parameter[];
  responses: Record<string, { headers?: Record<string, Json> }>;
}
interface Document {
  paths: Record<string, Record<string, Entry>>;
  components: { parameters: Record<string, Parameter>; headers: Record<string, Json> };
}

/** The served document's entry of an operation. */
const entryOf = (doc: Document, operation: CatalogueOperation) => {
  const entry = doc.paths[operation.http.path]?.[operation.http.method.toLowerCase()];
  assert.ok(entry, `${operation.id} is in the document`);
  return entry;
};

/** The (lower-case) names of the request headers the document declares on an operation, references resolved. */
const declaredRequestHeaders = (doc: Document, operation: CatalogueOperation) =>
  entryOf(doc, operation)
    .parameters.map((p) => (p.$ref ? doc.components.parameters[p.$ref.split('/').at(-1) ?? ''] : p))
    .filter((p) => p?.in === 'header')
    .map((p) => p?.name.toLowerCase());

const servedDocument = async (server: TestServer) =>
  (await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as Document;

describe('on an embedded node', () => {
  let server: TestServer;
  let doc: Document;
  const tokens: Partial<Record<'user' | 'root', string>> = {};
  before(async () => {
    server = await startTestServer();
    doc = await servedDocument(server);
    tokens.user = (await server.registerTenant()).token;
    tokens.root = await server.login(superAdmin.email, superAdmin.password);
  });
  after(() => server?.close());

  test('every operation that reads X-GoDB-Consistency and X-GoDB-Min-Seq declares them, and only those', async () => {
    const reading: Record<string, string[]> = {};
    for (const [name, bad] of [
      [consistencyHeader.name.toLowerCase(), 'eventual'],
      [minSeqHeader.name.toLowerCase(), 'soon'],
    ] as const) {
      for (const operation of operations) {
        const token = operation.access === 'superadmin' ? tokens.root : tokens.user;
        const res = await server.app.inject(exampleRequest(operation, { token, headers: { [name]: bad } }));
        // The server checks a value it reads, embedded or not: a bad one is refused naming the header.
        const reads =
          res.statusCode === 400 && (res.json() as Json & { error: Json }).error.field === `headers.${name}`;
        const declared = declaredRequestHeaders(doc, operation).includes(name);
        assert.equal(
          declared,
          reads,
          `${operation.id}: the server ${reads ? 'reads' : 'does not read'} ${name} (${res.statusCode} ${res.body.slice(0, 300)}), the document ${declared ? 'declares' : 'does not declare'} it`,
        );
        if (reads) (reading[name] ??= []).push(operation.id);
      }
    }
    // Today every operation waits for them (a write too: one that depends on a write made on another node).
    assert.equal(reading['x-godb-consistency']?.length, operations.length);
    assert.equal(reading['x-godb-min-seq']?.length, operations.length);
  });

  test('the headers are reusable components: the request headers as parameters, X-GoDB-Seq as a response header', () => {
    const { parameters, headers } = doc.components;
    assert.deepEqual(parameters.GoDBConsistency, {
      name: 'X-GoDB-Consistency',
      in: 'header',
      required: false,
      description: consistencyHeader.description,
      schema: { type: 'string', enum: ['local', 'strong'], default: 'local' },
    });
    assert.equal(parameters.GoDBMinSeq?.name, 'X-GoDB-Min-Seq');
    assert.deepEqual(headers.GoDBSeq, {
      description: sequenceHeader.description,
      schema: { type: 'string', pattern: sequenceHeader.pattern },
    });
    for (const operation of operations) {
      const refs = entryOf(doc, operation).parameters.map((p) => p.$ref);
      assert.ok(refs.includes('#/components/parameters/GoDBConsistency'), operation.id);
      assert.ok(refs.includes('#/components/parameters/GoDBMinSeq'), operation.id);
    }
  });

  test('an embedded node answers without X-GoDB-Seq', async () => {
    const res = await server.call('GET', '/api/v1/collections', tokens.user);
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-godb-seq'], undefined);
  });
});

describe('on a cluster node (real NATS JetStream)', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster({ names: ['a'], prefix: 'headers' });
  });
  after(() => cluster?.close());

  test('every answer carrying X-GoDB-Seq is declared with it, and every declared success answer carries it', async () => {
    const [node] = cluster.nodes as [TestServer];
    const doc = await servedDocument(node);
    const user = (await node.registerTenant()).token;
    const root = await node.login(superAdmin.email, superAdmin.password);
    // Something to read, so that reads of the examples' documents answer.
    assert.equal((await node.call('POST', '/api/v1/documents', user, { id: 'doc-1', content: 'A wing.' })).status, 201);
    const carried: string[] = [];
    for (const operation of operations) {
      const token = operation.access === 'superadmin' ? root : user;
      const res = await node.app.inject(exampleRequest(operation, { token }));
      const seq = res.headers['x-godb-seq'];
      const declared = entryOf(doc, operation).responses[String(res.statusCode)]?.headers?.[sequenceHeader.name];
      const what = `${operation.id} answered ${res.statusCode} (${res.body.slice(0, 200)})`;
      if (seq !== undefined) {
        assert.ok(declared, `${what} with X-GoDB-Seq, which the document does not declare on that answer`);
        assert.match(String(seq), new RegExp(sequenceHeader.pattern), what);
        carried.push(operation.id);
      } else {
        assert.equal(declared, undefined, `${what} without X-GoDB-Seq, which the document declares on that answer`);
      }
    }
    console.log(`# ${carried.length} of ${operations.length} operations' examples answered with X-GoDB-Seq`);
    // Reads and writes of every kind were among the answers seen.
    for (const id of ['register', 'login', 'add-document', 'get-document', 'search-text', 'list-collections']) {
      assert.ok(carried.includes(id), `${id} answered with X-GoDB-Seq (${carried.join(', ')})`);
    }
  });
});
