import type { PipelineRequest } from '../server/src/engine/search/pipeline/pipeline-input.js';
import { bearer, startTestServer } from '../server/src/test-support/server.js';
import type { Cranfield } from './cranfield.js';
import { unthrottledServerEnv } from './support.js';

/**
 * A body of POST /api/v1/search/query (the contract's QueryRequest, as the engine reads it; `offset` and `explain`
 * left to their defaults). The server validates it against the contract's schema: a body it refuses fails the bench.
 */
export type PipelineBody = Omit<PipelineRequest, 'offset' | 'explain' | 'signal'>;

/** One pipeline the bench records: its row name and its request body for a query's text. */
export interface PipelineConfig {
  readonly system: string;
  readonly body: (query: string) => PipelineBody;
}

/**
 * The bench's first pipeline row, kept for continuity: a text stage and a dense stage (the query embedded with
 * use-lite-512, the server's default model), `depth` candidates each, fused by RRF (k 60, equal weights), then MMR
 * (lambda 0.7) over the fused candidates.
 */
export const rrfMmrPipeline = (depth: number): PipelineConfig => ({
  system: 'GoDB query pipeline (text + dense, RRF, MMR 0.7)',
  body: (query) => ({
    prefetch: [
      { kind: 'text', query, limit: depth },
      { kind: 'dense', query, limit: depth },
    ],
    fusion: { method: 'rrf' },
    mmr: { lambda: 0.7, candidates: depth },
    limit: depth,
  }),
});

/**
 * The pipeline tuned on the odd query ids (bench/relevance.md, "Tuning the query pipeline"): a text stage with RM3
 * feedback (3 docs, 50 terms, original weight 0.4) answering 250 candidates, a dense stage (use-lite-512) answering
 * 1,000, fused by DBSF with weights 0.9 text, 0.1 dense; 100 results, no MMR (it costs nDCG@10 on Cranfield).
 */
export const tunedPipeline: PipelineConfig = {
  system: 'GoDB query pipeline (text + RM3 3/50/0.4 + dense, DBSF 0.9/0.1; tuned on odd queries)',
  body: (query) => ({
    prefetch: [
      { kind: 'text', query, limit: 250, feedback: { docs: 3, terms: 50, original_weight: 0.4 } },
      { kind: 'dense', query, limit: 1000 },
    ],
    fusion: { method: 'dbsf', weights: [0.9, 0.1] },
    limit: 100,
  }),
};

/**
 * Cranfield ranked by the query pipeline over HTTP (POST /api/v1/search/query, issue #42) on a real server of its
 * own, indexed once, by each of `configs`. Returns each configuration's rankings (by its `system`): each query's
 * document ids, best first.
 */
export async function pipelineRankings(
  c: Cranfield,
  configs: readonly PipelineConfig[],
): Promise<Map<string, Map<number, string[]>>> {
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
    const out = new Map<string, Map<number, string[]>>();
    for (const config of configs) {
      const rankings = new Map<number, string[]>();
      for (const q of c.queries) {
        const answer = await post('/api/v1/search/query', config.body(q.text));
        rankings.set(
          q.id,
          answer.results.map((r) => r.document_id),
        );
      }
      out.set(config.system, rankings);
    }
    return out;
  } finally {
    await server.close();
  }
}
