import { bearer, startTestServer } from '../server/src/test-support/server.js';
import type { Cranfield } from './cranfield.js';
import { unthrottledServerEnv } from './support.js';

/**
 * Cranfield ranked by the query pipeline over HTTP (POST /api/v1/search/query, issue #42) on a real server of its
 * own: a text stage and a dense stage (the query embedded with use-lite-512, the server's default model), fused by
 * RRF, then MMR (lambda 0.7) over the fused candidates. Returns each query's ranking, best first.
 */
export async function pipelineRankings(c: Cranfield, depth: number): Promise<Map<number, string[]>> {
  const server = await startTestServer({
    ...unthrottledServerEnv,
    DEFAULT_EMBEDDING_MODEL: 'use-lite-512',
    WRITE_TIMEOUT_MS: '1200000',
  });
  try {
    const admin = await server.registerTenant();
    const headers = bearer(admin.token);
    const post = async (url: string, payload: unknown) => {
      const res = await server.app.inject({ method: 'POST', url, headers, payload: payload as object });
      if (res.statusCode >= 300) throw new Error(`${url} ${res.statusCode} ${res.body.slice(0, 400)}`);
      return res.json() as { results: { document_id: string }[] };
    };
    const started = performance.now();
    for (let from = 0; from < c.docs.length; from += 200)
      await post(
        '/api/v1/documents/batch',
        c.docs.slice(from, from + 200).map((d) => ({ id: d.id, title: d.title, content: d.text })),
      );
    while (server.engine.vectors.lag() > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    await server.engine.text.loaded(admin.tenantId);
    process.stdout.write(
      `Pipeline server indexed the collection in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
    const rankings = new Map<number, string[]>();
    for (const q of c.queries) {
      const answer = await post('/api/v1/search/query', {
        prefetch: [
          { kind: 'text', query: q.text, limit: depth },
          { kind: 'dense', query: q.text, limit: depth },
        ],
        fusion: { method: 'rrf' },
        mmr: { lambda: 0.7, candidates: depth },
        limit: depth,
      });
      rankings.set(
        q.id,
        answer.results.map((r) => r.document_id),
      );
    }
    return rankings;
  } finally {
    await server.close();
  }
}
