import embed from '../../../../../bench/results/embed.json';
import ingest from '../../../../../bench/results/ingest.json';
import relevance from '../../../../../bench/results/relevance.json';
import graph from '../../../../../bench/results/graph.json';
import grpc from '../../../../../bench/results/grpc.json';
import search from '../../../../../bench/results/search.json';
import vector from '../../../../../bench/results/vector.json';
import web from '../../../../../bench/results/web.json';
import { BarChart } from '../bar-chart';

type Rows = Record<string, string | number>[];
const num = (v: string | number | undefined) => Number(v ?? 0);

function Machine({
  machine,
}: {
  machine: { cpus: number; cpu_model: string; memory_gib: number; node: string; date: string };
}) {
  return (
    <p style={{ fontSize: 14, color: 'var(--color-text-muted)' }}>
      Measured on {machine.cpus} cores ({machine.cpu_model}), {machine.memory_gib} GiB, Node {machine.node},{' '}
      {machine.date.slice(0, 10)}. A shared, noisy machine: compare ratios within one run.
    </p>
  );
}

function Table({ rows }: { rows: Rows }) {
  const headers = Object.keys(rows[0] ?? {});
  return (
    <table>
      <thead>
        <tr>
          {headers.map((h) => (
            <th key={h} scope="col">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={i}>
            {headers.map((h) => (
              <td key={h}>{row[h]}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Every number on this page is read from bench/results/*.json, written by `npm run bench:*`. */
export default function Performance() {
  const rel = relevance.results as Rows;
  const emb = embed.results as Rows;
  // GloVe's tens of thousands per second would flatten the chart: it is in the table below.
  const useLite = emb.filter((r) => r.model === 'use-lite-512' && !String(r.texts).startsWith('cache'));
  return (
    <>
      <p>
        Every figure here comes from the benchmark scripts in <code>bench/</code>, committed as result files and drawn
        from them; rerun them with <code>npm run bench:relevance</code>, <code>bench:embed</code>,{' '}
        <code>bench:ingest</code>, <code>bench:vector</code>, <code>bench:search</code>, <code>bench:grpc</code>,{' '}
        <code>bench:graph</code> and <code>bench:web</code>.
      </p>
      <h2>Relevance (Cranfield)</h2>
      <p>
        1,400 aerodynamics abstracts, 225 queries with graded judgements; GoDB and its peers index the same documents
        and answer the same queries in one run.
      </p>
      <BarChart
        title="nDCG@10 on Cranfield (higher is better)"
        unit="nDCG@10"
        labels={rel.map((r) => String(r.system))}
        series={[{ label: 'nDCG@10', values: rel.map((r) => num(r['nDCG@10'])), color: '#4f5dff' }]}
      />
      <Table rows={rel} />
      <Machine machine={relevance.machine} />
      <h2>Embedding throughput</h2>
      <BarChart
        title="use-lite-512: texts embedded per second, native runtime and TensorFlow.js WASM"
        unit="texts/s"
        labels={useLite.map(
          (r) => `${r.runtime}, ${r.workers} worker${r.workers === 1 ? '' : 's'}, ${String(r.texts).split(' ')[0]}`,
        )}
        series={[{ label: 'texts/s', values: useLite.map((r) => num(r['texts/s'])), color: '#14b8a6' }]}
      />
      <Table rows={emb} />
      <Machine machine={embed.machine} />
      <h2>Ingest</h2>
      <Table rows={ingest.results as Rows} />
      <Machine machine={ingest.machine} />
      <h2>Vector search at 100,000 vectors</h2>
      <p>
        The engine’s full query path (access rule, exact rescoring, filters) next to raw usearch on the same vectors,
        and GoDB’s own index searched alone. They take turns every 20 queries, in rotating order, so that the machine’s
        drift and the cost of following another contender weigh on each alike. GoDB adds vectors to its index in batches
        (512 or 4,096 at a time), raw usearch in one call; GoDB’s index comes out 10–15 % faster to search at the same
        recall, so the ratio to GoDB’s own index is the measure of what the query path costs.
      </p>
      <Table rows={vector.results as Rows} />
      <Machine machine={vector.machine} />
      <h2>Search over HTTP at 100,000 documents</h2>
      <p>
        Text, vector and hybrid top-10: the most queries per second 10 connections reach (autocannon), latency at a
        steady 500 requests per second (loadtest, an open loop, so queueing shows), and the same queries through the
        engine in-process.
      </p>
      <Table rows={search.results as Rows} />
      <Machine machine={search.machine} />
      <h2>gRPC next to REST</h2>
      <Table rows={grpc.results as Rows} />
      <Machine machine={grpc.machine} />
      <h2>Graph queries at 10,000 nodes and 100,000 edges</h2>
      <Table rows={graph.results as Rows} />
      <Machine machine={graph.machine} />
      <h2>The website</h2>
      <p>JavaScript loaded (gzip), Largest Contentful Paint and Cumulative Layout Shift measured in Chromium.</p>
      <Table rows={web.results as Rows} />
      <Machine machine={web.machine} />
      <h2>Scaling</h2>
      <ul>
        <li>Embedding is the bottleneck of ingestion: it is CPU-bound and scales with cores (one worker per core).</li>
        <li>Searches run on one core each; the HNSW index and the store are shared by all requests of a process.</li>
        <li>Tenants are independent indexes: a large tenant does not slow down the others’ text search.</li>
        <li>Horizontal scaling is the purpose of the planned cluster mode (NATS JetStream).</li>
      </ul>
    </>
  );
}
