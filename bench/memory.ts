// npm run bench:memory — what one vector costs in memory and on disk for each storage kind, measured: for each kind
// a child process builds a usearch HNSW index (m 16, as the server's) of BENCH_VECTORS (50,000) clustered 512-d
// vectors, and the growth of its resident memory while adding them is divided by their number, beside the size of
// the saved file and the estimate the server reports in collection info (`bytes_per_vector`). The float32 copies
// the server keeps for exact rescoring are measured the same way. Memory does not depend on ef, so the build uses
// a small one to be quick.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { indexBytesPerVector } from '../server/src/engine/collections/vector-space.js';
import { caveat, saveResults, table } from './support.js';
import { clusteredVectors } from './vector-data.js';

const count = Number(process.env.BENCH_VECTORS ?? 50_000);
const dims = 512;
const m = 16;
const kinds = { f32: ScalarKind.F32, f16: ScalarKind.F16, i8: ScalarKind.I8, b1: ScalarKind.B1 } as const;
type Kind = keyof typeof kinds | 'float32 copies';

/** Resident memory of this process (Linux /proc), in bytes. */
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;

/** In the child: build one kind's index and print what it took. */
function measure(kind: Kind): void {
  const { data } = clusteredVectors(count, 1, dims);
  const keys = BigUint64Array.from({ length: count }, (_v, i) => BigInt(i + 1));
  global.gc?.();
  const before = rss();
  if (kind === 'float32 copies') {
    // What the server keeps per vector for rescoring: the numbers and the key.
    const copies = new Float32Array(count * dims);
    copies.set(data.matrix);
    const ids = new Float64Array(count).fill(1);
    process.stdout.write(JSON.stringify({ memory: (rss() - before) / count, file: 0, touched: copies[7]! + ids[3]! }));
    return;
  }
  const index = new Index({
    metric: kind === 'b1' ? MetricKind.Hamming : MetricKind.Cos,
    connectivity: m,
    dimensions: dims,
    quantization: kinds[kind],
    expansion_add: 32,
    expansion_search: 64,
    multi: false,
  });
  index.add(keys, data.matrix, 2); // float32 in, quantised by usearch as the server does
  const memory = (rss() - before) / count;
  const dir = mkdtempSync(join(tmpdir(), 'godb-bench-memory-'));
  index.save(join(dir, 'index.usearch'));
  const file = statSync(join(dir, 'index.usearch')).size / count;
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(JSON.stringify({ memory, file }));
}

const child = process.argv[2] as Kind | undefined;
if (child) measure(child);
else {
  caveat();
  process.stdout.write(`${count.toLocaleString('en')} clustered ${dims}-d vectors per kind, HNSW m ${m}\n\n`);
  const rows: Record<string, string | number>[] = [];
  for (const kind of [...(Object.keys(kinds) as Kind[]), 'float32 copies' as const]) {
    const out = execFileSync(
      process.execPath,
      [...process.execArgv, '--expose-gc', fileURLToPath(import.meta.url), kind],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    const measured = JSON.parse(out) as { memory: number; file: number };
    const estimate = kind === 'float32 copies' ? dims * 4 + 8 : indexBytesPerVector(dims, kind, m);
    rows.push({
      storage: kind,
      'memory bytes/vector (measured)': Math.round(measured.memory),
      'file bytes/vector': kind === 'float32 copies' ? '-' : Math.round(measured.file),
      'server estimate bytes/vector': Math.round(estimate),
      'measured ÷ estimate': (measured.memory / estimate).toFixed(2),
      'GB per 1M vectors': ((measured.memory * 1e6) / 2 ** 30).toFixed(2),
    });
  }
  table(rows);
  saveResults('memory', { vectors: count, dimensions: dims, m, rows });
}
