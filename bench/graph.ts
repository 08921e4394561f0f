// npm run bench:graph — 10,000 documents and 100,000 typed, weighted edges: time of every graph query type and of
// every centrality (on the whole graph where it is near-linear, on a start node's 2-hop neighbourhood where it
// costs O(V·E)).
import { prepareDocument } from '../server/src/engine/documents/prepare.js';
import type { PreparedDocument } from '../server/src/engine/documents/types.js';
import { runGraphQuery, type GraphRequest } from '../server/src/engine/graph/graph-query.js';
import { benchEngine, benchViewer, random } from './engine-fixture.js';
import { caveat, saveResults, table } from './support.js';

const nodes = Number(process.env.BENCH_NODES ?? 10_000);
const edges = Number(process.env.BENCH_EDGES ?? 100_000);
caveat();
const next = random(21);
const { engine, dispose } = benchEngine();
const outgoing = Array.from({ length: nodes }, () => [] as { target_id: string; type: string; weight: number }[]);
for (let e = 0; e < edges; e += 1) {
  // Preferential attachment-ish: targets skewed towards low ids, as real link graphs are.
  const source = Math.floor(next() * nodes);
  const target = Math.floor(nodes * next() ** 2);
  if (source !== target)
    outgoing[source]!.push({ target_id: `n${target}`, type: 'links_to', weight: 1 + Math.floor(next() * 9) });
}
const prepared: PreparedDocument[] = outgoing.map((edgesOf, i) =>
  prepareDocument(
    { id: `n${i}`, title: `node ${i}`, edges: edgesOf, embedding_options: { enabled: false } },
    benchViewer.userId,
    'bench',
  ),
);
for (let i = 0; i < prepared.length; i += 2000)
  engine.commands.write(benchViewer, prepared.slice(i, i + 2000), () => 'bench');
const scope = { viewer: benchViewer, now: Math.floor(Date.now() / 1000) };
const base: GraphRequest = {
  queryType: 'bfs',
  start: 'n1',
  end: 'n9999',
  depth: 2,
  limit: 100,
  edgeType: 'links_to',
  dimensions: 32,
};
const rows: Record<string, string | number>[] = [];
const time = async (label: string, request: Partial<GraphRequest>) => {
  const started = performance.now();
  const answer = await runGraphQuery(engine.search, scope, { ...base, ...request }, () => new Map());
  rows.push({ query: label, ms: Math.round(performance.now() - started), 'nodes answered': answer.nodes.length });
};
await time('graph load alone (bfs depth 1)', { queryType: 'bfs', depth: 1 });
for (const queryType of ['shortest_path', 'astar', 'bidirectional', 'bellman_ford', 'bfs', 'dfs'])
  await time(queryType, { queryType });
for (const type of ['degree', 'pagerank', 'eigenvector', 'katz'])
  await time(`centrality ${type} (whole graph)`, { queryType: 'centrality', centralityType: type, start: undefined });
for (const type of ['closeness', 'betweenness', 'harmonic'])
  await time(`centrality ${type} (2-hop neighbourhood)`, {
    queryType: 'centrality',
    centralityType: type,
    start: 'n5000',
    depth: 2,
  });
for (const queryType of ['embeddings', 'transe_embeddings', 'graphsage_embeddings'])
  await time(`${queryType} (2-hop neighbourhood, 32 dims)`, { queryType, start: 'n5000', depth: 2 });
table(rows);
process.stdout.write(
  '\nEvery query rebuilds the caller’s view of the graph from the store (access rule included): the first row is that cost alone.\n',
);
saveResults('graph', rows);
await dispose();
