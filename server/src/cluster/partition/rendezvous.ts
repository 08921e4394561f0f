import { createHash } from 'node:crypto';

/**
 * The nodes holding the replicas of one collection shard: rendezvous (highest random weight) hashing of node ids, the
 * `replicationFactor` nodes with the highest hash of (shard key, node id). A node joining or leaving moves only the
 * replicas it wins or held (about rf/n of them), which is why it is chosen over a modulo (decision 0062).
 *
 * @example replicasOf('docs/3', ['n1', 'n2', 'n3', 'n4'], 3); // three of the four, the same on every node
 */
export function replicasOf(shardKey: string, nodeIds: readonly string[], replicationFactor: number): string[] {
  const weighed = [...new Set(nodeIds)].map((node) => ({ node, weight: weight(shardKey, node) }));
  weighed.sort((a, b) => (a.weight === b.weight ? (a.node < b.node ? -1 : 1) : a.weight < b.weight ? 1 : -1));
  return weighed.slice(0, replicationFactor).map((w) => w.node);
}

/** A 64-bit weight as a bigint: 32 bits would collide too often to order thousands of shards reliably. */
const weight = (shardKey: string, node: string): bigint =>
  createHash('sha256').update(shardKey).update('\0').update(node).digest().readBigUInt64BE(0);

/**
 * The replicas of every shard of a collection: rendezvous hashing, then balanced. Plain rendezvous on few shards is
 * lumpy (6 shards × 3 replicas on 5 nodes gives one node all 6 often enough to matter), so while the most loaded node
 * holds two replicas more than the least loaded, one replica moves between them (on the shard the least loaded node
 * ranks highest among those it can take). Every node then holds ⌊shards·rf / n⌋ or one more. Deterministic in the
 * node set, so every node computes the same placement; the epoch in KV records which one is in force.
 *
 * @example placeCollection('docs', 6, ['n1', 'n2', 'n3', 'n4', 'n5'], 3); // six lists of three; 3 or 4 per node
 */
export function placeCollection(
  collectionId: string,
  shards: number,
  nodeIds: readonly string[],
  replicationFactor: number,
): string[][] {
  const nodes = [...new Set(nodeIds)].sort();
  const rf = Math.min(replicationFactor, nodes.length);
  const placed = Array.from({ length: shards }, (_, s) => replicasOf(`${collectionId}/${s}`, nodes, rf));
  const load = new Map(nodes.map((n) => [n, 0]));
  const loadOf = (n: string) => load.get(n) ?? 0;
  for (const r of placed) for (const n of r) load.set(n, loadOf(n) + 1);
  for (;;) {
    const byLoad = [...nodes].sort((a, b) => loadOf(a) - loadOf(b) || (a < b ? -1 : 1));
    const least = byLoad[0];
    const most = byLoad[byLoad.length - 1];
    if (least === undefined || most === undefined || loadOf(most) - loadOf(least) <= 1) return placed;
    // `most` holds more shards than `least`, so at least one shard has `most` and not `least`.
    let chosen: string[] | undefined;
    let chosenRank = -1n;
    for (const [s, r] of placed.entries()) {
      if (!r.includes(most) || r.includes(least)) continue;
      const rank = weight(`${collectionId}/${s}`, least);
      if (rank > chosenRank) [chosen, chosenRank] = [r, rank];
    }
    if (chosen === undefined) return placed;
    chosen[chosen.indexOf(most)] = least;
    load.set(most, loadOf(most) - 1);
    load.set(least, loadOf(least) + 1);
  }
}
