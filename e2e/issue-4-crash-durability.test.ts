import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

async function api(server: ServerProcess, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown> & { results?: { document_id: string }[] },
  };
}

test('every write acknowledged with 2xx survives kill -9 and is searchable after the restart', async () => {
  const env = {
    MODEL_CACHE_DIR: `${process.env.TMPDIR ?? '/tmp'}/godb-test-model-cache`,
    RATE_LIMIT_RPS: '10000',
    RATE_LIMIT_BURST: '10000',
  };
  const first = await startServerProcess(env);
  const dataDir = first.dataDir;
  const credentials = { email: `crash-${randomUUID()}@example.com`, password: 'password-1234' };
  await api(first, 'POST', '/auth/register', undefined, { ...credentials, tenant_id: randomUUID() });
  const token = (await api(first, 'POST', '/auth/login', undefined, credentials)).body.token as string;

  const acknowledged: string[] = [];
  for (let batch = 0; batch < 5; batch += 1) {
    const docs = Array.from({ length: 40 }, (_v, i) => ({
      id: `doc-${batch}-${i}`,
      title: `Report ${batch}-${i} on ${i % 2 ? 'turbine blade cooling' : 'supersonic inlet design'}`,
      content: `Measurements number ${batch * 40 + i} of ${i % 2 ? 'film cooling effectiveness on turbine blades' : 'shock positions in supersonic inlets'}.`,
      embedding_options: { model_name: 'glove-100' },
    }));
    const res = await api(first, 'POST', '/api/v1/documents/batch', token, docs);
    assert.equal(res.status, 200);
    acknowledged.push(...docs.map((d) => d.id));
  }
  // A last single write, then the process dies without any chance to save its indexes.
  const last = await api(first, 'POST', '/api/v1/documents', token, {
    id: 'the-last-one',
    title: 'Last write',
    content: 'written just before the crash about ablation',
    embedding_options: { model_name: 'glove-100' },
  });
  assert.equal(last.status, 201);
  acknowledged.push('the-last-one');
  first.process.kill('SIGKILL');
  await new Promise((resolve) => first.process.once('exit', resolve));

  const second = await startServerProcess(env, dataDir);
  try {
    for (const id of acknowledged) {
      assert.equal((await api(second, 'GET', `/api/v1/documents/${id}`, token)).status, 200, id);
    }
    const stats = (await api(second, 'GET', '/api/v1/documents/stats', token)).body;
    assert.equal(stats.DocumentCount, acknowledged.length);
    const text = await api(second, 'POST', '/api/v1/search/text', token, { query: 'ablation', query_type: 'match' });
    assert.deepEqual(
      text.body.results?.map((r) => r.document_id),
      ['the-last-one'],
    );
    const vector = await api(second, 'POST', '/api/v1/search/vector', token, {
      query: 'ablation before the crash',
      threshold: 0,
      limit: 3,
      embedding_options: { model_name: 'glove-100' },
    });
    assert.ok(
      vector.body.results?.some((r) => r.document_id === 'the-last-one'),
      'the vector index was rebuilt from the store',
    );
    const cooled = await api(second, 'POST', '/api/v1/search/vector', token, {
      query: 'turbine blade cooling',
      threshold: 0,
      limit: 50,
      embedding_options: { model_name: 'glove-100' },
    });
    assert.equal(cooled.body.results?.length, 50);
  } finally {
    await second.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
