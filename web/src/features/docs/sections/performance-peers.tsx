import peers from '../../../../../bench/results/peers.json';
import { BarChart } from '../bar-chart';
import { Machine, Table, num, type BenchMachine, type Rows } from '../bench-results';

interface PeersResults {
  dataset: string;
  vectors: number;
  dimensions: number;
  queries: number;
  k: number;
  hnsw: { m: number; ef_construction: number; ef_search: number };
  clients: number;
  seconds: number;
  load_average_before: number[];
  load_average_after: number[];
  table: Rows;
  /** GoDB over the others, with the goals in the labels. */
  ratios: Record<string, number>;
}

/** GoDB over HTTP beside raw usearch, hnswlib and LanceDB embedded on GloVe word vectors (bench:peers, issue #40). */
export function PeersSection() {
  const results = peers.results as PeersResults;
  const rows = results.table;
  const labels = rows.map((r) => String(r.system));
  const load = (l: number[]) => l.map((v) => v.toFixed(1)).join(', ');
  return (
    <>
      <h2>Vector search beside the libraries and an embedded database</h2>
      <p>
        <code>npm run bench:peers</code>: {results.vectors.toLocaleString('en')} GloVe word vectors of{' '}
        {results.dimensions} dimensions ({results.dataset}), {results.queries.toLocaleString('en')} held-out words as
        queries, top {results.k}, cosine, the same HNSW settings everywhere (M {results.hnsw.m}, ef_construction{' '}
        {results.hnsw.ef_construction}, ef_search {results.hnsw.ef_search}); recall against the exact top {results.k}.
        Each system runs alone, from one client and from {results.clients} for {results.seconds} s. GoDB answers over
        HTTP from its own process; the libraries and LanceDB run inside the benchmark&apos;s process.
      </p>
      <p>
        In this run:{' '}
        {Object.entries(results.ratios)
          .map(([label, value]) => `${label}: ${value}`)
          .join('; ')}
        . Load average {load(results.load_average_before)} before and {load(results.load_average_after)} after (2 would
        be this benchmark alone on the machine): read the ratios, not the absolute numbers.
      </p>
      <BarChart
        title={`Queries per second, top ${results.k} of ${results.vectors.toLocaleString('en')} vectors (higher is better)`}
        unit="QPS"
        labels={labels}
        series={[
          { label: '1 client', values: rows.map((r) => num(r['QPS 1'])), color: '#4f5dff' },
          { label: `${results.clients} clients`, values: rows.map((r) => num(r['QPS 8'])), color: '#14b8a6' },
        ]}
      />
      <Table rows={rows} />
      <Machine machine={peers.machine as BenchMachine} />
    </>
  );
}
