import cores from '../../../../../bench/results/cores.json';
import { BarChart } from '../bar-chart';
import { Machine, Table, num, type BenchMachine, type Rows } from '../bench-results';

interface CoresResults {
  vectors: number;
  dimensions: number;
  storage: string;
  documents: number;
  clients: number;
  seconds: number;
  raw_usearch_qps: number;
  load_generator: string;
  rounds: number;
  search: Rows;
  ratios: Rows;
}

const colors = ['#94a3b8', '#4f5dff', '#14b8a6', '#f59e0b'];

/** One core against two, with and without search workers (bench:cores, issue #40). */
export function CoresSection() {
  const results = cores.results as CoresResults;
  const rows = results.search;
  const kinds = [...new Set(rows.map((r) => String(r.search)))];
  const setups = [...new Set(rows.map((r) => String(r.server)))];
  const qps = (setup: string) =>
    kinds.map((kind) => num(rows.find((r) => r.server === setup && r.search === kind)?.QPS));
  return (
    <>
      <h2>One core against two</h2>
      <p>
        <code>npm run bench:cores</code>: one data folder ({results.vectors.toLocaleString('en')} client vectors of{' '}
        {results.dimensions} numbers stored as {results.storage}, and {results.documents.toLocaleString('en')} text
        documents) served by the built server pinned with <code>taskset</code> to one core, then to two, with and
        without search worker threads (<code>SEARCH_THREADS</code>), {results.clients} connections for {results.seconds}{' '}
        s per kind, the best of {results.rounds} rounds. The load generator is {results.load_generator}: on two cores it
        competes with the server, so the two-core ratios here are a floor, not what a machine with a core to spare
        shows. Raw usearch on one thread answered {Math.round(results.raw_usearch_qps).toLocaleString('en')} queries per
        second on the same vectors in the same run.
      </p>
      <BarChart
        title="Queries per second by search kind and server setup (higher is better)"
        unit="QPS"
        labels={kinds}
        series={setups.map((setup, i) => ({
          label: setup,
          values: qps(setup),
          color: colors[i % colors.length] ?? '#4f5dff',
        }))}
      />
      <Table rows={rows} />
      <h3>Ratios (goals from issue #40)</h3>
      <Table rows={results.ratios} />
      <Machine machine={cores.machine as BenchMachine} />
    </>
  );
}
