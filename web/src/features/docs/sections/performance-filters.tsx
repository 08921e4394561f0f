import filters from '../../../../../bench/results/filters.json';
import { BarChart } from '../bar-chart';
import { Machine, Table, num, type BenchMachine, type Rows } from '../bench-results';

interface FiltersResults {
  documents: number;
  dims: number;
  queries_per_filter: number;
  index_build_seconds: number;
  postings_bytes_per_document_and_index: number;
  /** Each index built alone: its build time and disk per document (runs before 2026-12-02's second have none). */
  builds?: Rows;
  /** Each filter's p50 over the unfiltered p50 of the same run (indexed phase). */
  p50_over_unfiltered?: Record<string, number>;
  rows: Rows;
}

/** Filtered vector search with and without field indexes (bench:filters, issue #39). */
export function FiltersSection() {
  const results = filters.results as FiltersResults;
  const rows = results.rows;
  const labels = [...new Set(rows.map((r) => String(r.filter)))];
  const plain = rows.some((r) => r.phase === 'no index');
  const qps = (phase: string) =>
    labels.map((label) => num(rows.find((r) => r.phase === phase && r.filter === label)?.QPS));
  const ratios = results.p50_over_unfiltered;
  return (
    <>
      <h2>Filtered vector search with field indexes</h2>
      <p>
        <code>npm run bench:filters</code>: {results.documents.toLocaleString('en')} documents with their own{' '}
        {results.dims}-dimensional vectors, {results.queries_per_filter.toLocaleString('en')} queries per filter, each
        with a filter value no other query used (a filter seen for the first time, as when it names a user, a tag or a
        date range); {plain ? 'first with no field index, then ' : ''}with <code>metadata.tag</code>,{' '}
        <code>metadata.price</code> and <code>created_at</code> declared. Single conditions and nested groups at 0.1 %,
        1 %, 10 % and 50 % of the documents; the ACL rows search unfiltered as a user who may read 5 % or 0.1 % of the
        documents. Recall@10 is measured against brute force over the documents the filter and the access rule allow.
        Building the three indexes took {results.index_build_seconds} s in the background; they take{' '}
        {results.postings_bytes_per_document_and_index} bytes of disk per document and index, and no memory beyond
        SQLite&apos;s page cache.
      </p>
      {ratios && (
        <p>
          p50 over the unfiltered p50 of the same run (goal: at most 2×):{' '}
          {Object.entries(ratios)
            .map(([label, ratio]) => `${label} ${ratio}×`)
            .join(', ')}
          .
        </p>
      )}
      <BarChart
        title="Queries per second by filter, one client, in process (higher is better)"
        unit="QPS"
        labels={labels}
        series={[
          ...(plain ? [{ label: 'no field index', values: qps('no index'), color: '#94a3b8' }] : []),
          { label: 'field indexes', values: qps('indexed'), color: '#4f5dff' },
        ]}
      />
      <Table rows={rows} />
      {results.builds && <Table rows={results.builds} />}
      <Machine machine={filters.machine as BenchMachine} />
    </>
  );
}
