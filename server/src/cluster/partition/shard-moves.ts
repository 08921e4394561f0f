import { collectionId, type PlacementRecord, type ReplicaMove } from './placement-records.js';
import { placeCollection } from './rendezvous.js';

/**
 * The next placement of a partitioned collection on the way to the one rendezvous hashing gives over `nodes` (the
 * nodes not gone: heard from within CLUSTER_NODE_GONE_S), or null when it is there already (decision 0082). Per shard:
 * - a holder that is gone stays listed (searches and acknowledgements skip it) until as many live replicas as the
 *   factor serve the shard: a lease holder that sees every other node gone at once (a NATS partition, its own
 *   restart) must not make the others drop their copies;
 * - each target node neither serving nor moving in gets a move: it replays the shard's subject, then promotes itself;
 * - a move to a node that is gone or no longer a target is dropped (that node releases what it copied);
 * - a live holder that is no longer a target leaves only while as many live replicas as the factor serve without it,
 *   so a shard never has fewer serving replicas than before the move began.
 * Deterministic in (record, nodes): whichever node holds the lease computes the same next step.
 *
 * @example nextPlacement(record, ['a', 'b', 'c', 'd'], 1_700_000_000); // epoch + 1 with a move to d, or null
 */
export function nextPlacement(
  record: PlacementRecord,
  nodes: readonly string[],
  nowSeconds: number,
): PlacementRecord | null {
  const live = [...new Set(nodes)].sort();
  if (live.length === 0) return null;
  const target = placeCollection(
    collectionId(record.tenantId, record.name),
    record.shards,
    live,
    record.replicationFactor,
  );
  const factor = Math.min(record.replicationFactor, live.length);
  const replicas: string[][] = [];
  const moves: ReplicaMove[] = [];
  for (let shard = 0; shard < record.shards; shard += 1) {
    const wanted = target[shard] ?? [];
    const before = record.replicas[shard] ?? [];
    const gone = before.filter((n) => !live.includes(n));
    const replaced = [...gone];
    let serving = before.filter((n) => live.includes(n));
    const moving = movesOf(record, shard).filter((m) => live.includes(m.to) && wanted.includes(m.to));
    const leaving = serving.filter((n) => !wanted.includes(n));
    for (const to of wanted) {
      if (serving.includes(to) || moving.some((m) => m.to === to)) continue;
      // What the move replaces, for people reading GET /api/v1/cluster: a gone holder first, else one leaving.
      const from = replaced.shift() ?? leaving.find((n) => !moving.some((m) => m.from === n)) ?? '';
      moving.push({ shard, to, from, startedAt: nowSeconds });
    }
    for (const node of leaving) if (serving.length - 1 >= factor) serving = serving.filter((n) => n !== node);
    replicas.push(serving.length >= record.replicationFactor ? serving : [...serving, ...gone]);
    moves.push(...moving);
  }
  const unchanged =
    JSON.stringify(replicas) === JSON.stringify(record.replicas) &&
    JSON.stringify(moves) === JSON.stringify(record.moves ?? []);
  if (unchanged) return null;
  return { ...record, epoch: record.epoch + 1, nodes: live, replicas, moves };
}

/**
 * The record once `node` caught up with its move into `shard`: it serves it (after the replicas already there, so
 * searches and acknowledgements keep asking those first). Null when that move is no longer in the record.
 */
export function promoted(record: PlacementRecord, shard: number, node: string): PlacementRecord | null {
  const moves = record.moves ?? [];
  if (!moves.some((m) => m.shard === shard && m.to === node)) return null;
  return {
    ...record,
    epoch: record.epoch + 1,
    replicas: record.replicas.map((r, s) => (s === shard && !r.includes(node) ? [...r, node] : [...r])),
    moves: moves.filter((m) => !(m.shard === shard && m.to === node)),
  };
}

/** The moves into one shard of a record. */
export const movesOf = (record: PlacementRecord, shard: number): ReplicaMove[] =>
  (record.moves ?? []).filter((m) => m.shard === shard);
