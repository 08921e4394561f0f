import filters from '../../../../../bench/results/filters.json';
import { BarChart } from '../bar-chart';
import { Machine, Table, num, type BenchMachine, type Rows } from '../bench-results';

interface FiltersResults {
  documents: number;
  dims: number;
  queries_per_filter: number;
  index_build_seconds: number;
  postings_bytes_per_document_and_index: number;
  rows: Rows;
}

/** Filtered vector search with and without field indexes (bench:filters, issue #39). */
export function FiltersSection() {
  const results = filters.results as FiltersResults;
  const rows = results.rows;
  const labels = [...new Set(rows.map((r) => String(r.filter)))];
  const qps = (phase: string) =>
    labels.map((label) => num(rows.find((r) => r.phase === phase && r.filter === label)?.QPS));
  return (
    <>
      <h2>Filtered vector search with field indexes</h2>
      <p>
        <code>npm run bench:filters</code>: {results.documents.toLocaleString('en')} documents with their own{' '}
        {results.dims}-dimensional vectors, {results.queries_per_filter} queries per filter, each with a filter value no
        other query used (a filter seen for the first time, as when it names a user, a tag or a date range); first with
        no field index, then with <code>metadata.tag</code>, <code>metadata.price</code> and <code>created_at</code>{' '}
        declared. The ACL rows search unfiltered as a user who may read 5 % or 0.1 % of the documents. Recall@10 is
        measured against brute force over the documents the filter and the access rule allow. Building the three indexes
        took {results.index_build_seconds} s in the background; they take{' '}
        {results.postings_bytes_per_document_and_index} bytes of disk per document and index.
      </p>
      <BarChart
        title="Queries per second by filter, one client, in process (higher is better)"
        unit="QPS"
        labels={labels}
        series={[
          { label: 'no field index', values: qps('no index'), color: '#94a3b8' },
          { label: 'field indexes', values: qps('indexed'), color: '#4f5dff' },
        ]}
      />
      <Table rows={rows} />
      <Machine machine={filters.machine as BenchMachine} />
    </>
  );
}
