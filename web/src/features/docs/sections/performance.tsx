import embed from '../../../../../bench/results/embed.json';
import ingest from '../../../../../bench/results/ingest.json';
import relevance from '../../../../../bench/results/relevance.json';
import relevanceChunking from '../../../../../bench/results/relevance-chunking.json';
import graph from '../../../../../bench/results/graph.json';
import grpc from '../../../../../bench/results/grpc.json';
import search from '../../../../../bench/results/search.json';
import vector from '../../../../../bench/results/vector.json';
import web from '../../../../../bench/results/web.json';
import { BarChart } from '../bar-chart';
import { Machine, Table, num, type Rows } from '../bench-results';
import { ClusterSection } from './performance-cluster';
import { CoresSection } from './performance-cores';
import { FiltersSection } from './performance-filters';
import { PeersSection } from './performance-peers';
import { PipelineSection } from './performance-pipeline';
import { ScaleSection } from './performance-scale';

/** Every number on this page is read from bench/results/*.json, written by `npm run bench:*`. */
export default function Performance() {
  const rel = relevance.results as Rows;
  const byChunking = relevanceChunking.results as Rows;
  const emb = embed.results as Rows;
  // GloVe's tens of thousands per second would flatten the chart: it is in the table below.
  const useLite = emb.filter((r) => r.model === 'use-lite-512' && !String(r.texts).startsWith('cache'));
  const vec = vector.results;
  const vectorKinds = (vec.targets as Rows).map((r) => String(r.storage));
  const vectorQps = (filter: 'raw' | 'none' | '10 %' | '1 %') =>
    vectorKinds.map((kind) =>
      num(
        (vec.search as Rows).find(
          (r) =>
            r.storage === kind &&
            (filter === 'raw' ? String(r.path).startsWith('raw') : r.filter === filter && r.path === 'GoDB over HTTP'),
        )?.['QPS 1 client'],
      ),
    );
  return (
    <>
      <p>
        Every figure here comes from the benchmark scripts in <code>bench/</code>, committed as result files and drawn
        from them; rerun them with <code>npm run bench:relevance</code>, <code>bench:embed</code>,{' '}
        <code>bench:ingest</code>, <code>bench:vector</code>, <code>bench:search</code>, <code>bench:grpc</code>,{' '}
        <code>bench:scale</code>, <code>bench:filters</code>, <code>bench:pipeline</code>, <code>bench:memory</code>,{' '}
        <code>bench:graph</code>, <code>bench:cluster</code> and <code>bench:web</code>.
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
      <h3>Text search when documents are chunked</h3>
      <p>
        The same documents and queries, in the same run: in a text-only collection (no vector, each document whole), in
        a collection whose model vector (use-lite-512) is filled from chunks of the default size (1,024 characters, 200
        shared with the next chunk), and in the same with 256-character chunks. BM25 scores a document split into chunks
        as the whole document (its words counted once, overlap included), so chunking for embeddings does not change
        text ranking.
      </p>
      <BarChart
        title="GoDB text search on Cranfield by chunking: nDCG@10 and MAP (higher is better)"
        unit="score"
        labels={byChunking.map((r) => String(r.setup))}
        series={[
          { label: 'nDCG@10', values: byChunking.map((r) => num(r['nDCG@10'])), color: '#4f5dff' },
          { label: 'MAP', values: byChunking.map((r) => num(r.MAP)), color: '#14b8a6' },
        ]}
      />
      <Table rows={byChunking} />
      <Machine machine={relevanceChunking.machine} />
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
      <h2>Vector search through the collection API at {vec.vectors.toLocaleString('en')} vectors</h2>
      <p>
        {vec.vectors.toLocaleString('en')} clustered {vec.dimensions}-dimensional vectors given by the client, each
        document with a number <code>metadata.bucket</code> from 0 to 99, so that a filter <code>bucket &lt; 10</code>{' '}
        allows 10 % of them and <code>bucket &lt; 1</code> 1 %. One collection per storage kind (cosine, M 16, ef
        200/100), imported with the batch endpoint and searched over HTTP on a real port; raw usearch indexes the same
        vectors with the same parameters in the same run, reads as many candidates as GoDB and rescores them exactly.
        Recall is against the exact top 10 of the documents the filter allows. One client sends its next query when the
        previous one is answered, taking turns with raw usearch every 20 queries so that the machine’s drift weighs on
        both alike; then {vec.clients} clients at once. Raw usearch has no filtered search in its JavaScript binding:
        the floor of a filtered query is the exact scan of the allowed vectors alone. GoDB learns which documents a
        filter allows before it compares a vector, then scans those vectors exactly when they are few (the 1 % rows) or
        asks the index for as many candidates as the filter’s share needs and drops the others by a lookup (the 10 %
        rows). “engine ms” is the server’s own <code>time_taken</code>; the rest of a query’s time is HTTP and the 512
        numbers’ JSON.
      </p>
      <BarChart
        title="Queries per second, one client: raw usearch, and GoDB over HTTP without a filter, at 10 % and at 1 %"
        unit="QPS"
        labels={vectorKinds}
        series={[
          { label: 'raw usearch', values: vectorQps('raw'), color: '#94a3b8' },
          { label: 'GoDB, no filter', values: vectorQps('none'), color: '#4f5dff' },
          { label: 'GoDB, 10 %', values: vectorQps('10 %'), color: '#14b8a6' },
          { label: 'GoDB, 1 %', values: vectorQps('1 %'), color: '#f59e0b' },
        ]}
      />
      <h3>Import</h3>
      <Table rows={vec.import as Rows} />
      <h3>Search</h3>
      <Table rows={vec.search as Rows} />
      <h3>The targets of filtered search</h3>
      <p>Recall@10 at least 0.95 at 1 % selectivity, and at 10 % at least half the queries per second of no filter.</p>
      <Table rows={vec.targets as Rows} />
      <Machine machine={vector.machine} />
      <PeersSection />
      <CoresSection />
      <ScaleSection />
      <FiltersSection />
      <PipelineSection />
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
      <ClusterSection />
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
        <li>
          Searches by a collection’s own vector without filters run whole on a pool of search threads (
          <code>SEARCH_THREADS</code>, one per core beyond the first) sharing the saved HNSW index memory-mapped; other
          kinds run on the thread that parses HTTP, see “One core against two” above.
        </li>
        <li>Tenants are independent indexes: a large tenant does not slow down the others’ text search.</li>
        <li>
          Memory and disk grow linearly with the documents (see “One node from 100,000 to 1,000,000 documents” above,
          with what that means at 10 and 100 million).
        </li>
        <li>
          Cluster mode (preview, NATS JetStream) replicates the directory to every node; a collection created with{' '}
          <code>shards</code> above 1 is spread over the nodes, each shard held by <code>replication_factor</code> of
          them, and vector search fans out to one replica of each shard (decision 0066).
        </li>
      </ul>
    </>
  );
}
