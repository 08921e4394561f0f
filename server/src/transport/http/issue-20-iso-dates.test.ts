import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type HttpMethod, type TestServer } from '../../test-support/server.js';

type Body = Record<string, unknown> & { error?: { code: string; message: string; field?: string } };

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;

const call = (method: HttpMethod, url: string, payload?: unknown) => server.call(method, url, admin.token, payload);
const add = (doc: Record<string, unknown>) =>
  call('POST', '/api/v1/documents', { embedding_options: { model_name: 'glove-100' }, ...doc });
const stored = async (id: string) => (await call('GET', `/api/v1/documents/${id}`)).body.document as Body;

// 2024-05-01T00:00:00Z and 2024-05-01T12:00:00Z.
const may1 = 1714521600;
const may1Noon = 1714564800;

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
});
after(async () => {
  await server.close();
});

test('date-like document fields take ISO 8601 dates and are stored and answered as Unix seconds', async () => {
  const created = await add({
    id: 'iso-dates',
    title: 'Dated',
    content: 'A document about dated boundary layers.',
    created_at: '2024-05-01',
    updated_at: '2024-05-01T12:00:00Z',
    indexed_at: '2024-05-01T14:00:00+02:00',
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const doc = await stored('iso-dates');
  assert.equal(doc.created_at, may1);
  assert.equal(doc.updated_at, may1Noon);
  // indexed_at is accepted in either form, but the server sets it when it indexes the document.
  assert.equal(typeof doc.indexed_at, 'number');
});

test('Unix seconds are still accepted as they are', async () => {
  assert.equal((await add({ id: 'unix-dates', content: 'Seconds.', created_at: may1 })).status, 201);
  assert.equal((await stored('unix-dates')).created_at, may1);
});

test('batch add and engagement convert their dates too', async () => {
  const batch = await call('POST', '/api/v1/documents/batch', [
    {
      id: 'batch-iso',
      content: 'Batch dated.',
      created_at: '2024-05-01T12:00:00Z',
      embedding_options: { model_name: 'glove-100' },
    },
  ]);
  assert.equal(batch.status, 200, JSON.stringify(batch.body));
  assert.equal((await stored('batch-iso')).created_at, may1Noon);
  const engaged = await call('PATCH', '/api/v1/documents/iso-dates/engagement', { last_engaged: '2024-05-01' });
  assert.equal(engaged.status, 200, JSON.stringify(engaged.body));
  assert.equal(((await stored('iso-dates')).engagement as Body).last_engaged, may1);
});

test('an ACL entry expires at an ISO date', async () => {
  const res = await call('PUT', '/api/v1/documents/iso-dates/acl', {
    operation: 'add',
    acl: [{ user_id: admin.userId, role: 'owner', expires_at: '9999-12-31T23:59:59Z' }],
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
});

test('a date that is not one answers 400 naming the field', async () => {
  for (const [value, field] of [
    ['yesterday', 'body.created_at'],
    ['2024-02-30', 'body.created_at'],
    ['2024-13-01', 'body.created_at'],
    ['1969-12-31', 'body.created_at'],
  ] as const) {
    const res = await add({ id: 'bad-date', content: 'x', created_at: value });
    assert.equal(res.status, 400, value);
    assert.equal(res.body.error?.code, 'VALIDATION_FAILED', value);
    assert.equal(res.body.error?.field, field, value);
    assert.match(res.body.error?.message ?? '', /ISO 8601 date such as 2024-05-01/, value);
  }
  const batch = await call('POST', '/api/v1/documents/batch', [
    { id: 'ok', content: 'x' },
    { id: 'bad', content: 'x', updated_at: 'soon' },
  ]);
  assert.equal(batch.status, 400);
  assert.equal(batch.body.error?.field, 'body[1].updated_at');
});

test('filters on created_at compare ISO dates as Unix seconds', async () => {
  assert.equal(
    (await add({ id: 'old-layer', content: 'An old note on boundary layers.', created_at: '2020-01-01' })).status,
    201,
  );
  const ids = async (filters: unknown) => {
    const res = await call('POST', '/api/v1/search/text', { query: 'boundary layers', query_type: 'match', filters });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body.results as { document_id: string }[]).map((r) => r.document_id).sort();
  };
  assert.deepEqual(await ids([{ field: 'created_at', operator: 'gte', value: '2024-01-01' }]), ['iso-dates']);
  assert.deepEqual(await ids(JSON.stringify([{ field: 'created_at', operator: 'lt', value: '2024-01-01' }])), [
    'old-layer',
  ]);
  assert.deepEqual(await ids({ created_at: '2020-01-01' }), ['old-layer']);
  const bad = await call('POST', '/api/v1/search/text', {
    query: 'boundary',
    filters: [{ field: 'created_at', operator: 'gte', value: '2024-02-30' }],
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error?.field, 'body.filters[0].value');
});
