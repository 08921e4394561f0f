// npm run bench:embed — embedding throughput of each local model: short (~20 words) and long (~250 words) texts,
// with 1 and 2 workers, and the cache-hit path as the reference for the cost of inference itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Embedder, type EmbedderOptions } from '../server/src/engine/embeddings/embedder.js';
import { caveat, saveResults, table, throughput } from './support.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const words =
  'the boundary layer over a swept wing separates when the adverse pressure gradient grows faster than viscous diffusion can supply momentum near the wall'.split(
    ' ',
  );
let counter = 0;
const text = (n: number) => {
  counter += 1;
  return `${counter} ${Array.from({ length: n }, (_v, i) => words[(i * 7 + counter) % words.length]).join(' ')}`;
};

const modelsDir = mkdtempSync(join(tmpdir(), 'godb-bench-models-'));
const options = (workers: number): EmbedderOptions => ({
  defaultModel: 'use-lite-512',
  modelsDir,
  modelCacheDir: join(tmpdir(), 'godb-test-model-cache'),
  workerPoolSize: workers,
  queueLimit: 1000,
  cacheSize: 10_000,
  remote: [],
  http: { timeoutMs: 1000, retries: 0, sleep: async () => {} },
});

caveat();
const rows: Record<string, string | number>[] = [];
for (const model of ['use-lite-512', 'glove-100']) {
  for (const workers of model === 'use-lite-512' ? [1, 2] : [1]) {
    const embedder = new Embedder(options(workers));
    await embedder.embed(model, ['warm up']);
    for (const [label, size] of [
      ['short (~20 words)', 20],
      ['long (~250 words)', 250],
    ] as const) {
      // Requests of 32 texts, several in flight, as a batch import would send them.
      const rate = await throughput(async () => {
        const batches = Array.from({ length: workers * 2 }, () => Array.from({ length: 32 }, () => text(size)));
        await Promise.all(batches.map((b) => embedder.embed(model, b)));
        return workers * 2 * 32;
      }, seconds);
      rows.push({
        model,
        workers: model === 'glove-100' ? '1 (always)' : workers,
        texts: label,
        'texts/s': Math.round(rate),
      });
    }
    const hot = Array.from({ length: 32 }, () => text(20));
    await embedder.embed(model, hot);
    const cached = await throughput(async () => (await embedder.embed(model, hot)).length, 2);
    rows.push({
      model,
      workers: model === 'glove-100' ? '1 (always)' : workers,
      texts: 'cache hit (20 words)',
      'texts/s': Math.round(cached),
    });
    await embedder.close();
  }
}
table(rows);
const rate = (model: string, workers: number | string, texts: string) =>
  rows.find((r) => r.model === model && r.workers === workers && r.texts === texts)?.['texts/s'] as number;
const speedup = rate('use-lite-512', 2, 'short (~20 words)') / rate('use-lite-512', 1, 'short (~20 words)');
process.stdout.write(`\nuse-lite-512, 2 workers vs 1 (short texts): ${speedup.toFixed(2)}×\n`);
process.stdout.write(
  `use-lite-512 short texts with 2 workers: ${rate('use-lite-512', 2, 'short (~20 words)')} texts/s (goal ≥ 150)\n`,
);
process.stdout.write(
  `cache hit vs inference (use-lite-512, 2 workers): ${(rate('use-lite-512', 2, 'cache hit (20 words)') / rate('use-lite-512', 2, 'short (~20 words)')).toFixed(0)}×\n`,
);
saveResults('embed', rows);
rmSync(modelsDir, { recursive: true, force: true });
