import type { ClusterView } from '@godb/contract';
import type { UseCaseOf } from '../context.js';
import type { ClusterDeps, ClusterState, NodeReport } from './deps.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * GET /api/v1/cluster: the nodes heard from, the shard streams with who leads and applies each, this node's applied
 * sequence and lag per shard, the partitioned collections' placements and the replicas being moved (decision 0082). An
 * embedded node answers what is true there, one node and no streams (decision 0057).
 *
 * @example await getClusterUseCase(deps)({}, ctx) // { mode: 'cluster', node: 'a', nodes: [...], shards: [...], moves: [] }
 */
export const getClusterUseCase =
  (deps: ClusterDeps): UseCaseOf<'get-cluster'> =>
  async () => {
    const { self, clusterState, now } = deps;
    if (!clusterState) {
      return {
        mode: 'embedded',
        node: self.id,
        nodes: [{ id: self.id, address: self.address, last_seen: seconds(now()), alive: true }],
        shards: [],
        collections: [],
        moves: [],
      } satisfies ClusterView;
    }
    return viewOf(self.id, await clusterState(), now());
  };

function viewOf(node: string, state: ClusterState, nowMs: number): ClusterView {
  const reports = [...state.reports].sort((a, b) => a.node.localeCompare(b.node));
  return {
    mode: 'cluster',
    node,
    nodes: reports.map((r) => ({
      id: r.node,
      address: r.address ?? '',
      last_seen: seconds(r.at),
      alive: nowMs - r.at <= state.aliveWithinMs,
    })),
    shards: state.streams.map((s) => {
      const applied = state.applied[s.shard] ?? 0;
      return {
        shard: s.shard,
        stream: s.stream,
        leader: s.leader,
        replicas: [...s.replicas],
        first_seq: s.first,
        last_seq: s.last,
        applied_seq: applied,
        lag: Math.max(0, s.last - applied),
        // Every node applies every shard today (the log is replicated, not partitioned: issue #41).
        holders: reports.map((r) => ({ node: r.node, applied_seq: r.applied[s.shard] ?? 0 })),
      };
    }),
    collections: state.collections.map((c) => ({
      ...c,
      shards: c.shards.map((s) => ({
        ...s,
        replicas: [...s.replicas],
        holders: s.holders.map((node) => ({ node, applied_seq: subjectApplied(reports, node, s.subject) })),
      })),
    })),
    moves: state.moves.map(({ subject, ...move }) => {
      const applied = subjectApplied(reports, move.to, subject);
      return { ...move, applied_seq: applied, lag: Math.max(0, move.last_seq - applied) };
    }),
  };
}

/** What a node's last report says it applied of a collection shard's subject (0: nothing reported). */
const subjectApplied = (reports: readonly NodeReport[], node: string, subject: string): number =>
  reports.find((r) => r.node === node)?.subjects?.[subject] ?? 0;
