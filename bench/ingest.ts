// npm run bench:ingest — documents per second through the engine's write path (validation, chunking, store,
// text and geo indexes, one transaction per batch), without embeddings and with use-lite-512.
import { benchEngine, benchViewer, random, syntheticText } from './engine-fixture.js';
import { caveat, saveResults, table } from './support.js';

caveat();
const rows: Record<string, string | number>[] = [];
const next = random(7);

async function measure(label: string, total: number, batch: number, embed: boolean) {
  const { engine, dispose } = benchEngine();
  let n = 0;
  const started = performance.now();
  while (n < total) {
    const docs = Array.from({ length: batch }, (_v, i) => ({
      id: `doc-${n + i}`,
      title: `Report ${n + i}`,
      content: syntheticText(next, 60),
      tags: ['bench'],
      metadata: { bucket: (n + i) % 100 },
      location: [next() * 180 - 90, next() * 360 - 180] as [number, number],
      embedding_options: embed ? { model_name: 'use-lite-512' } : { enabled: false },
    }));
    await engine.add(benchViewer, docs, (i) => `docs[${i}]`);
    n += batch;
  }
  const seconds = (performance.now() - started) / 1000;
  rows.push({
    case: label,
    documents: total,
    'batch size': batch,
    seconds: seconds.toFixed(2),
    'docs/s': Math.round(total / seconds),
  });
  await dispose();
}

await measure('no embeddings', 50_000, 1000, false);
await measure('use-lite-512 (2 workers)', 600, 100, true);
table(rows);
const noEmbed = Number(rows[0]?.['docs/s']);
process.stdout.write(
  `\nWithout embeddings: ${noEmbed} docs/s (goal ≥ 10,000); embedding costs ${(noEmbed / Number(rows[1]?.['docs/s'])).toFixed(0)}× the rest of the write path.\n`,
);
saveResults('ingest', rows);
