import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test-support/server.js';

type Result = { document_id: string; score: number; similarity?: number; chunks: { score: number }[] };
type Body = { results?: Result[]; notes?: string[]; error?: { message: string } };

let server: TestServer;
let token: string;

const texts = {
  shock: 'Shock waves cause the boundary layer to separate from the surface of a supersonic wing.',
  heat: 'Heat transfer to the nose cone of a hypersonic vehicle rises with the Mach number.',
  buckling: 'Thin cylindrical shells buckle under axial compression well below the classical load.',
  nozzle: 'The flow in a convergent-divergent nozzle chokes at the throat.',
  panel: 'Panel flutter of a flat plate in supersonic flow depends on the dynamic pressure.',
  laminar: 'Laminar flow over a flat plate becomes turbulent past a critical Reynolds number.',
};

const vector = async (body: Record<string, unknown>) => {
  const res = await server.call('POST', '/api/v1/search/vector', token, { limit: 10, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Body;
};

before(async () => {
  server = await startTestServer({ RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000' });
  ({ token } = await server.registerTenant());
  const added = await server.call(
    'POST',
    '/api/v1/documents/batch',
    token,
    Object.entries(texts).map(([id, content]) => ({ id, title: id, content })),
  );
  assert.equal(added.status, 200, JSON.stringify(added.body));
});
after(async () => {
  await server.close();
});

describe('issue 37: the vector threshold applies to the score a hit carries', () => {
  // The documents are embedded with the default model, use-lite-512 (calibrated).
  for (const [model, query] of [['use-lite-512', 'why does the flow separate behind a shock wave']] as const) {
    for (const method of ['cosine', 'euclidean', 'dot'] as const) {
      test(`${model}, ${method}: every returned score is at least the threshold; 0 returns hits`, async () => {
        const ask = (threshold: number) =>
          vector({ query, similarity_method: method, threshold, embedding_options: { model_name: model } });
        const all = await ask(0);
        assert.equal(all.results?.length, Object.keys(texts).length, 'threshold 0 keeps everything');
        for (const threshold of [0, 0.2, 0.5, 0.7, 0.9, 1]) {
          const found = threshold === 0 ? all : await ask(threshold);
          for (const r of found.results ?? []) {
            assert.ok(r.score >= threshold, `threshold ${threshold}: ${JSON.stringify(r)}`);
            assert.ok(r.score <= 1, 'a calibrated relevance is at most 1');
            assert.equal(typeof r.similarity, 'number', 'the raw similarity is answered beside it');
            for (const c of r.chunks) assert.ok(c.score <= r.score + 1e-9);
          }
          // Exactly the results of threshold 0 that score at least the threshold: nothing else decides.
          assert.deepEqual(
            (found.results ?? []).map((r) => r.document_id),
            (all.results ?? []).filter((r) => r.score >= threshold).map((r) => r.document_id),
            `threshold ${threshold}`,
          );
        }
        // Scores rank as the similarities do, and the best match of this query is the shock document.
        const scores = (all.results ?? []).map((r) => r.score);
        assert.deepEqual(
          scores,
          [...scores].sort((a, b) => b - a),
        );
        assert.equal(all.results?.[0]?.document_id, 'shock');
      });
    }
  }

  test('a document’s own vector scores 1 and passes threshold 0.99, for every method', async () => {
    const doc = await server.call('GET', '/api/v1/documents/heat?include_embeddings=true', token);
    const own = (doc.body as unknown as { document: { embeddings: { vector: number[] }[] } }).document.embeddings[0]!
      .vector;
    for (const method of ['cosine', 'euclidean', 'dot'] as const) {
      const found = await vector({ vector: own, similarity_method: method, threshold: 0.99 });
      assert.deepEqual(
        (found.results ?? []).map((r) => r.document_id),
        ['heat'],
        method,
      );
      assert.ok(Math.abs(found.results![0]!.score - 1) < 1e-3, method);
      assert.ok(Math.abs(found.results![0]!.similarity! - 1) < 1e-3, method);
    }
  });

  test('threshold 1 keeps the same text (a float32 cosine of 0.99999994 is 1), for every method', async () => {
    const doc = await server.call('GET', '/api/v1/documents/heat?include_embeddings=true', token);
    const own = (doc.body as unknown as { document: { embeddings: { vector: number[] }[] } }).document.embeddings[0]!
      .vector;
    for (const method of ['cosine', 'euclidean', 'dot'] as const) {
      // The text embedded for a document: its title, then its content.
      for (const body of [{ vector: own }, { query: `heat\n${texts.heat}` }]) {
        const found = await vector({ ...body, similarity_method: method, threshold: 1 });
        const what = `${method} ${Object.keys(body)[0]}`;
        assert.deepEqual(
          (found.results ?? []).map((r) => r.document_id),
          ['heat'],
          what,
        );
        assert.equal(found.results![0]!.score, 1, what);
      }
    }
  });
});
