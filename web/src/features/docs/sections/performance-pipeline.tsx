import pipeline from '../../../../../bench/results/pipeline.json';
import { BarChart } from '../bar-chart';
import { Machine, Table, num, type BenchMachine, type Rows } from '../bench-results';

interface PipelineResults {
  documents: number;
  dims: number;
  sparse: { vocabulary: number; terms_per_document: number; terms_per_query: number };
  queries: number;
  stage_limit: number;
  write_seconds: number;
  rows: Rows;
  /** Each case's latency over hybrid search's in the same run. */
  ratios: Record<string, { p50: number; p99: number; mean: number }>;
  /** Whether the 3-stage pipeline with MMR stayed within 2× of hybrid at p50. */
  goal_met: boolean;
}

/** The query pipeline's stages, alone and fused, next to hybrid search (bench:pipeline, issue #42). */
export function PipelineSection() {
  const results = pipeline.results as PipelineResults;
  const rows = results.rows;
  const labels = rows.map((r) => String(r.case));
  return (
    <>
      <h2>The query pipeline next to hybrid search</h2>
      <p>
        <code>npm run bench:pipeline</code>: in process, {results.documents.toLocaleString('en')} documents with a
        title, content, an own {results.dims}-dimensional dense vector and a sparse vector of{' '}
        {results.sparse.terms_per_document} terms over a {results.sparse.vocabulary.toLocaleString('en')}-term
        vocabulary; {results.queries} queries, each asking every case in turn (text, {results.dims}-d vector and a{' '}
        {results.sparse.terms_per_query}-term sparse vector), each stage fetching {results.stage_limit}, limit 10.
        Hybrid is <code>POST /api/v1/search/hybrid</code> with the same text and vector. Writing the documents took{' '}
        {results.write_seconds} s.
      </p>
      <p>
        Latency over hybrid search&apos;s in the same run (goal for the 3-stage pipeline with MMR: at most 2× at p50,{' '}
        {results.goal_met ? 'met' : 'not met'}):{' '}
        {Object.entries(results.ratios)
          .map(([label, ratio]) => `${label} ${ratio.p50}× p50, ${ratio.p99}× p99`)
          .join('; ')}
        .
      </p>
      <BarChart
        title="Query pipeline latency by case, one client, in process: p50 and mean (lower is better)"
        unit="ms"
        labels={labels}
        series={[
          { label: 'p50 ms', values: rows.map((r) => num(r['p50 ms'])), color: '#4f5dff' },
          { label: 'mean ms', values: rows.map((r) => num(r['mean ms'])), color: '#14b8a6' },
        ]}
      />
      <Table rows={rows} />
      <Machine machine={pipeline.machine as BenchMachine} />
    </>
  );
}
