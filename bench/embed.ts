// npm run bench:embed — embedding throughput of each local model: short (~20 words) and long (~250 words) texts,
// with 1 and 2 workers, and the cache-hit path as the reference for the cost of inference itself. use-lite-512
// runs on both of its runtimes: native (onnxruntime, the default) and TensorFlow.js WASM as the reference.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Embedder, type EmbedderOptions } from '../server/src/engine/embeddings/embedder.js';
import type { UseLiteRuntime } from '../server/src/engine/embeddings/use-lite-runtime.js';
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
const options = (workers: number, runtime: UseLiteRuntime): EmbedderOptions => ({
  defaultModel: 'use-lite-512',
  modelsDir,
  modelCacheDir: join(tmpdir(), 'godb-test-model-cache'),
  workerPoolSize: workers,
  useLiteRuntime: runtime,
  queueLimit: 1000,
  cacheSize: 10_000,
  remote: [],
  http: { timeoutMs: 1000, retries: 0, sleep: async () => {} },
});

caveat();
const rows: Record<string, string | number>[] = [];
const configurations = [
  { model: 'use-lite-512', runtime: 'native', workers: 1 },
  { model: 'use-lite-512', runtime: 'native', workers: 2 },
  { model: 'use-lite-512', runtime: 'wasm', workers: 1 },
  { model: 'use-lite-512', runtime: 'wasm', workers: 2 },
  { model: 'glove-100', runtime: '-', workers: 1 },
] as const;
for (const { model, runtime, workers } of configurations) {
  const embedder = new Embedder(options(workers, runtime === 'wasm' ? 'wasm' : 'native'));
  await embedder.embed(model, ['warm up']);
  const row = { model, runtime, workers: model === 'glove-100' ? '1 (always)' : workers };
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
    rows.push({ ...row, texts: label, 'texts/s': Math.round(rate) });
  }
  const hot = Array.from({ length: 32 }, () => text(20));
  await embedder.embed(model, hot);
  const cached = await throughput(async () => (await embedder.embed(model, hot)).length, 2);
  rows.push({ ...row, texts: 'cache hit (20 words)', 'texts/s': Math.round(cached) });
  await embedder.close();
}
table(rows);
const rate = (runtime: string, workers: number, texts: string) =>
  rows.find((r) => r.model === 'use-lite-512' && r.runtime === runtime && r.workers === workers && r.texts === texts)?.[
    'texts/s'
  ] as number;
const short = 'short (~20 words)';
const line = (text: string) => process.stdout.write(`${text}\n`);
line('');
line(
  `use-lite-512 native, 2 workers vs 1 (short texts): ${(rate('native', 2, short) / rate('native', 1, short)).toFixed(2)}×`,
);
line(
  `use-lite-512 native vs wasm, 2 workers (short texts): ${(rate('native', 2, short) / rate('wasm', 2, short)).toFixed(2)}×`,
);
line(`use-lite-512 short texts with 2 workers: ${rate('native', 2, short)} texts/s (goal ≥ 150)`);
line(
  `cache hit vs inference (use-lite-512 native, 2 workers): ${(rate('native', 2, 'cache hit (20 words)') / rate('native', 2, short)).toFixed(0)}×`,
);
saveResults('embed', rows);
rmSync(modelsDir, { recursive: true, force: true });
