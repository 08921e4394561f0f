import type { SearchCore } from './search-core.js';

/** A document row of a partitioned collection: its id and collection. */
export type Place = readonly [id: string, table: string];

/** The rows of partitioned collections a node counts for one set of asked shards, kept while the rows grow. */
interface Kept {
  /** How many of `order` were looked at. */
  upTo: number;
  readonly seqs: Set<number>;
}

interface Places {
  /** The partitioned collections these are of (sorted, joined): another set reads them again. */
  readonly names: string;
  /** The highest seq read: rows are read from there on (seqs are never reused: AUTOINCREMENT). */
  through: number;
  readonly of: Map<number, Place>;
  /** The seqs of `of` in the order read. */
  readonly order: number[];
  /** By the asked shards' key (StatsCounting.key), the last few asked. */
  readonly kept: Map<string, Kept>;
}

/** Sets of asked shards remembered per index: a node is asked the same few while the placement holds. */
const keptAtMost = 8;

/** Kept per tenant text index object: a rebuilt or reloaded index (a restore, say) starts from nothing again. */
const byIndex = new WeakMap<object, Places>();

/**
 * The rows of the tenant's partitioned collections by seq, every version (the BM25 statistics keep only live public
 * chunks), for the dfs round of a partitioned search: read whole once, then only the rows written since. The round
 * read every public document and hashed each id on every query before (issue #41's bench: 4 text QPS at 50,000
 * documents on 3 nodes).
 *
 * @example const places = PartitionedPlaces.of(core, 't1', index, ['papers']); places.has(42);
 */
export class PartitionedPlaces {
  readonly #places: Places;

  private constructor(places: Places) {
    this.#places = places;
  }

  static of(core: SearchCore, tenantId: string, index: object, partitioned: readonly string[]): PartitionedPlaces {
    const names = [...partitioned].sort().join('\0');
    let places = byIndex.get(index);
    if (places?.names !== names) {
      places = { names, through: 0, of: new Map(), order: [], kept: new Map() };
      byIndex.set(index, places);
    }
    const wanted = new Set(partitioned);
    for (const [seq, id, table] of core.rows.rowsSince(tenantId, places.through)) {
      if (wanted.has(table)) {
        places.of.set(seq, [id, table]);
        places.order.push(seq);
      }
      places.through = seq;
    }
    return new PartitionedPlaces(places);
  }

  /** Whether the row `seq` is of a partitioned collection. */
  has(seq: number): boolean {
    return this.#places.of.has(seq);
  }

  /**
   * The rows `keep` accepts, for the asked shards `key` names: `keep` is asked once per row and set of shards, the
   * rows written since the last time only. Without a key, every row is asked and nothing is kept.
   */
  kept(key: string | undefined, keep: (place: Place) => boolean): ReadonlySet<number> {
    const { kept, order, of } = this.#places;
    if (key === undefined) return new Set(order.filter((seq) => keep(of.get(seq)!)));
    let found = kept.get(key);
    if (!found) {
      if (kept.size >= keptAtMost) kept.delete(kept.keys().next().value!);
      found = { upTo: 0, seqs: new Set() };
    }
    kept.delete(key);
    kept.set(key, found);
    for (; found.upTo < order.length; found.upTo += 1) {
      const seq = order[found.upTo]!;
      if (keep(of.get(seq)!)) found.seqs.add(seq);
    }
    return found.seqs;
  }
}
