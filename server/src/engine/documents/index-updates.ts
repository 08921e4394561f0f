import type { VectorIndexes } from '../vectors/vector-index.js';
import type { WrittenChunk } from './document-store.js';

/** What one write changes in the in-memory vector indexes, by space: chunks added, vector seqs removed. */
export type VectorChanges = Map<string, { added: WrittenChunk[]; removed: number[]; generation: number }>;

/**
 * The in-memory index updates of writes, and when they run: at once, or — while an operation is applied — after its
 * transaction committed, so the indexes follow only rows that are stored (see {@link IndexUpdates.holding}).
 */
export class IndexUpdates {
  readonly #vectors: VectorIndexes;
  /** While an operation is applied: the updates that wait for its commit. */
  #held: (() => void)[] | null = null;

  constructor(vectors: VectorIndexes) {
    this.#vectors = vectors;
  }

  /**
   * Runs `work`, whose writes join the caller's transaction, with the in-memory index updates they make held back
   * until it returns: a whole operation commits with its log position, and the indexes follow only a transaction
   * that committed. A nested call hands its updates to the outer one; a call that throws drops its own.
   *
   * @example updates.holding(() => transaction(db, [text], () => writer.write(viewer, docs, path)));
   */
  holding<T>(work: () => T): T {
    const outer = this.#held;
    const held: (() => void)[] = [];
    this.#held = held;
    let result: T;
    try {
      result = work();
    } finally {
      this.#held = outer;
    }
    if (outer) outer.push(...held);
    else for (const update of held) update();
    return result;
  }

  /** Runs an update of the in-memory indexes now, or after the commit of the operation being applied. */
  afterCommit(update: () => void): void {
    if (this.#held) this.#held.push(update);
    else update();
  }

  /** The changes of one space in `changes`, made empty on first use. */
  static change(changes: VectorChanges, space: string) {
    let c = changes.get(space);
    if (!c) {
      c = { added: [], removed: [], generation: 0 };
      changes.set(space, c);
    }
    return c;
  }

  /** Inside the write's transaction: each changed space's generation moves on (removals are logged with it). */
  bump(tenantId: string, changes: VectorChanges): void {
    for (const [space, c] of changes) c.generation = this.#vectors.bumpGeneration(tenantId, space, c.removed);
  }

  /** After the commit: the vector indexes take the added chunks and drop the removed vectors. */
  apply(tenantId: string, changes: VectorChanges): void {
    this.afterCommit(() => {
      for (const [space, c] of changes) this.#vectors.apply(tenantId, space, c.generation, c.added, c.removed);
    });
  }
}
