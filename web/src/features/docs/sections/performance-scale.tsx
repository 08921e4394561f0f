import memory from '../../../../../bench/results/memory.json';
import scale from '../../../../../bench/results/scale.json';
import { BarChart } from '../bar-chart';
import { Machine, Table, num, type BenchMachine, type Rows } from '../bench-results';

interface Run {
  documents: number;
  machine: BenchMachine;
  import: Record<string, string | number>;
  search: Rows;
  restart: Rows;
  snapshot?: Rows;
  /** The phase a run stopped before (bench:scale saves each phase as measured); absent when it ran to the end. */
  incomplete?: string;
}

/** Runs of 100,000 documents and more that measured at least their import. */
const runs = (scale.results.runs as Run[]).filter((r) => r.documents >= 100_000 && 'import docs/s' in r.import);
const size = (documents: number) => `${documents.toLocaleString('en')} documents`;
const colors = ['#4f5dff', '#14b8a6', '#f59e0b', '#94a3b8'];
const colorOf = (i: number) => colors[i % colors.length] ?? '#4f5dff';
/** The searches of bench:scale, GoDB's own over HTTP (raw usearch's in-process row is in the tables). */
const kinds = ['vector', 'vector 10 %', 'vector 1 %', 'text match', 'text phrase', 'hybrid'];
const searchRow = (run: Run, kind: string) => run.search.find((r) => r.search === kind);
/** "2.3 / 8.0" → 8.0; "over capacity" or absent → NaN. */
const p99At500 = (run: Run, kind: string) =>
  Number(String(searchRow(run, kind)?.['p50/p99 ms at 500/s']).split('/')[1]);
/** A chart's series: one per run, named by its size, with `value(run, kind)` for each kind. */
const bySize = (shown: readonly string[], value: (run: Run, kind: string) => number) =>
  runs.map((run, i) => ({
    label: size(run.documents),
    values: shown.map((kind) => value(run, kind)),
    color: colorOf(i),
  }));
const perDocument = (mb: number, documents: number) => (mb * 2 ** 20) / documents;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const gb = (bytes: number) => `${(bytes / 2 ** 30).toFixed(bytes < 10 * 2 ** 30 ? 1 : 0)} GB`;

/** How one node grows from 100k to 1M documents (bench:scale), with what the largest run means at 10M and 100M. */
export function ScaleSection() {
  const largest = runs[runs.length - 1];
  if (!largest) return null;
  const latencyKinds = kinds.filter((kind) => runs.every((run) => Number.isFinite(p99At500(run, kind))));
  const rssPerDoc = perDocument(num(largest.import['peak RSS MB']), largest.documents);
  const diskPerDoc = perDocument(num(largest.import['data folder MB']), largest.documents);
  const indexPerDoc = perDocument(num(largest.import['index + copies MB']), largest.documents);
  return (
    <>
      <h2>One node from 100,000 to 1,000,000 documents</h2>
      <p>
        <code>npm run bench:scale</code>: deterministic documents, each with a 512-dimensional vector given by the
        client (100 clusters, each spread along its own 48-dimensional subspace as text embeddings are; cosine, f16, M
        16, ef 200/100), about 60 words of Zipf-distributed text, a tag and two numbers, imported as one NDJSON stream
        over HTTP into a real server process and then searched over HTTP: the most queries per second 4 clients reach,
        latency at a steady 500 requests per second (an open loop, so queueing shows), recall@10 against brute force on
        200 queries, and raw usearch on the server’s own index file as the floor. Then a clean restart and a kill -9
        during writes (every acknowledged write checked), each timed to serving and until the text index is back in
        memory from its checkpoint, and the tenant’s snapshot taken on the live node and restored in its place.
      </p>
      <BarChart
        title="Most queries per second, 4 clients, by collection size (higher is better)"
        unit="QPS"
        labels={kinds}
        series={bySize(kinds, (run, kind) => num(searchRow(run, kind)?.['max QPS (4 clients)']))}
      />
      {latencyKinds.length > 0 && (
        <BarChart
          title="p99 latency at a steady 500 requests per second, by collection size (lower is better)"
          unit="ms"
          labels={latencyKinds}
          series={bySize(latencyKinds, p99At500)}
        />
      )}
      <h3>Import, memory and disk</h3>
      <Table
        rows={runs.map((run) => ({
          ...run.import,
          documents: run.documents.toLocaleString('en'),
          'peak RSS per document': kb(perDocument(num(run.import['peak RSS MB']), run.documents)),
          'disk per document': kb(perDocument(num(run.import['data folder MB']), run.documents)),
        }))}
      />
      <h3>Restart and snapshots</h3>
      <Table
        rows={runs.flatMap((run) => run.restart.map((r) => ({ documents: run.documents.toLocaleString('en'), ...r })))}
      />
      {runs.some((run) => run.snapshot) && (
        <Table
          rows={runs.flatMap((run) =>
            (run.snapshot ?? []).map((r) => ({ documents: run.documents.toLocaleString('en'), ...r })),
          )}
        />
      )}
      {runs.map((run) => (
        <div key={run.documents}>
          <h3>Search at {size(run.documents)}</h3>
          {run.incomplete && (
            <p>This run stopped before its {run.incomplete}; the figures shown for it are the ones it measured.</p>
          )}
          <Table rows={run.search} />
          <Machine machine={run.machine} />
        </div>
      ))}
      <h3>Memory per vector, by storage kind</h3>
      <p>
        <code>npm run bench:memory</code>: for each storage kind a separate process builds an HNSW index (M 16) of{' '}
        {memory.results.vectors.toLocaleString('en')} clustered {memory.results.dimensions}-dimensional vectors; the
        growth of its resident memory divided by the vectors, beside the saved file and the estimate the collection info
        reports. The float32 copies, kept for exact rescoring, come on top of any kind.
      </p>
      <Table rows={memory.results.rows as Rows} />
      <Machine machine={memory.machine} />
      <h3>What the largest run means at 10 and 100 million</h3>
      <p>
        At {size(largest.documents)} a document took {kb(rssPerDoc)} of peak resident memory, {kb(indexPerDoc)} of it
        the HNSW graph and the float32 copies of its vector, and {kb(diskPerDoc)} on disk. Both grow linearly: 10
        million such documents need about {gb(rssPerDoc * 1e7)} of memory and {gb(diskPerDoc * 1e7)} of disk on one
        node, 100 million about {gb(rssPerDoc * 1e8)} and {gb(diskPerDoc * 1e8)}. The float32 copies are the largest
        part and are optional (a smaller <code>VECTOR_CACHE_MB</code> rescores from the store instead), and i8 or b1
        storage shrinks the graph; past one machine’s memory the answer is more machines, each holding a share of the
        tenants (docs/decisions/0024 and bench/scale.md in the repository).
      </p>
    </>
  );
}
