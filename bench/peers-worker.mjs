// One client of `npm run bench:peers` for a synchronous in-process library (raw usearch, hnswlib-node): opens the
// index the main thread saved, says `ready`, and on `go` runs a closed loop of searches until the given time,
// answering with every search's latency. Worker threads, because these libraries' searches block the thread that
// calls them: eight async calls on one thread would run one after another.
import { parentPort, workerData } from 'node:worker_threads';
import { Index, MetricKind, ScalarKind } from 'usearch';

// Plain JavaScript: a worker thread does not get tsx's loader. workerData: { library: 'usearch' | 'hnswlib', file,
// dims, queries (Float32Array, row-major), first (this worker's first query row, so that the workers do not ask the
// same queries in step), k, efSearch }.
const job = workerData;
const count = job.queries.length / job.dims;
const rows = Array.from({ length: count }, (_v, q) => job.queries.slice(q * job.dims, (q + 1) * job.dims));
let search;
if (job.library === 'usearch') {
  // expansion_search is not in the file: it is the opener's setting.
  const index = new Index({
    dimensions: job.dims,
    metric: MetricKind.Cos,
    quantization: ScalarKind.F32,
    connectivity: 16,
    expansion_search: job.efSearch,
    multi: false,
  });
  index.view(job.file);
  search = (q) => void index.search(rows[q], job.k, 1);
} else {
  // Loaded only when measured: hnswlib-node is installed by hand (see bench/peers.md).
  const { default: hnswlib } = await import('hnswlib-node');
  const index = new hnswlib.HierarchicalNSW('cosine', job.dims);
  index.readIndexSync(job.file);
  index.setEf(job.efSearch);
  const plain = rows.map((r) => Array.from(r));
  search = (q) => void index.searchKnn(plain[q], job.k);
}
parentPort.on('message', (until) => {
  const latencies = [];
  for (let turn = 0; Date.now() < until; turn += 1) {
    const started = performance.now();
    search((job.first + turn) % count);
    latencies.push(performance.now() - started);
  }
  parentPort.postMessage(latencies);
});
parentPort.postMessage('ready');
