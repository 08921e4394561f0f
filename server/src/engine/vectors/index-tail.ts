/**
 * The vectors of a space that are stored (durable, acknowledged) but not in its HNSW index yet: their keys in seq
 * order. Writes append here and return; the index takes them in batches in the background (see VectorIndexes),
 * and searches compare the query with every vector of the tail exactly, so a result is never missing because the
 * index is behind.
 *
 * Vector seqs only grow, so the tail is a suffix of the space: every vector up to the index's `through` is in the
 * index (or was removed), every live one after it is here. A key removed while in the tail is only marked (the
 * batch that reaches it skips it).
 *
 * It also tracks which generation of the space the index reflects: a write at generation G is in the index once
 * the tail is taken past its last key. A checkpoint records that generation, so a file saved while the index is
 * behind is caught up from the store on the next start, never taken as current.
 *
 * @example const tail = new IndexTail(); tail.push([7, 8], 3); tail.take(1); // { keys: [7], through: 7, generation: undefined }
 */
export class IndexTail {
  #keys: number[] = [];
  #head = 0;
  readonly #removed = new Set<number>();
  /** Generations written with their last key, oldest first: the index reflects one once it holds that key. */
  #marks: { generation: number; key: number }[] = [];

  /** Live vectors waiting. */
  get size(): number {
    return this.#keys.length - this.#head - this.#removed.size;
  }

  /** The last key waiting (removed or not), or 0. */
  get last(): number {
    return this.#keys.length > this.#head ? this.#keys[this.#keys.length - 1]! : 0;
  }

  /** Appends the keys a write at `generation` added (ascending, beyond every key already here). */
  push(keys: readonly number[], generation: number): void {
    for (const key of keys) this.#keys.push(key);
    if (keys.length > 0) this.#marks.push({ generation, key: this.last });
  }

  /**
   * Marks removed the keys that are waiting here; answers whether the tail still holds live keys. A removal-only
   * write at `generation` is reflected once the keys before it are indexed.
   */
  remove(keys: readonly number[], generation: number): void {
    for (const key of keys) if (this.#holds(key)) this.#removed.add(key);
    if (this.size === 0) this.clear();
    else this.#marks.push({ generation, key: this.last });
  }

  /**
   * Takes up to `count` live keys from the front; `through` is the last key passed (removed ones included) and
   * `generation` the newest generation now fully reflected once those keys are in the index (undefined: none new).
   */
  take(count: number): { keys: number[]; through: number; generation: number | undefined } {
    const keys: number[] = [];
    let through = 0;
    while (keys.length < count && this.#head < this.#keys.length) {
      const key = this.#keys[this.#head]!;
      this.#head += 1;
      through = key;
      if (this.#removed.delete(key)) continue;
      keys.push(key);
    }
    let generation: number | undefined;
    if (this.size === 0) {
      generation = this.#marks.at(-1)?.generation;
      this.clear();
    } else {
      while (this.#marks.length > 0 && this.#marks[0]!.key <= through) generation = this.#marks.shift()!.generation;
      if (this.#head > 4096 && this.#head * 2 > this.#keys.length) {
        this.#keys = this.#keys.slice(this.#head);
        this.#head = 0;
      }
    }
    return { keys, through, generation };
  }

  /** The live keys waiting, in seq order. */
  *live(): IterableIterator<number> {
    for (let i = this.#head; i < this.#keys.length; i += 1) {
      const key = this.#keys[i]!;
      if (!this.#removed.has(key)) yield key;
    }
  }

  clear(): void {
    this.#keys = [];
    this.#head = 0;
    this.#removed.clear();
    this.#marks = [];
  }

  /** Binary search: the keys are ascending. */
  #holds(key: number): boolean {
    let lo = this.#head;
    let hi = this.#keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.#keys[mid]!;
      if (at === key) return true;
      if (at < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
}

/**
 * The k nearest of many candidates by distance (smaller is nearer), kept in a bounded max-heap: one pass over a
 * tail of any length, memory O(k).
 */
export class Nearest {
  readonly #k: number;
  readonly #keys: number[] = [];
  readonly #distances: number[] = [];

  constructor(k: number) {
    this.#k = k;
  }

  offer(key: number, distance: number): void {
    if (this.#k <= 0 || !Number.isFinite(distance)) return;
    const keys = this.#keys;
    const distances = this.#distances;
    if (keys.length < this.#k) {
      keys.push(key);
      distances.push(distance);
      for (let i = keys.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (distances[parent]! >= distances[i]!) break;
        this.#swap(i, parent);
        i = parent;
      }
      return;
    }
    if (distance >= distances[0]!) return;
    keys[0] = key;
    distances[0] = distance;
    for (let i = 0; ;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let largest = i;
      if (left < keys.length && distances[left]! > distances[largest]!) largest = left;
      if (right < keys.length && distances[right]! > distances[largest]!) largest = right;
      if (largest === i) break;
      this.#swap(i, largest);
      i = largest;
    }
  }

  /** Keys and distances, nearest first. */
  result(): { keys: number[]; distances: number[] } {
    const order = this.#keys.map((_, i) => i).sort((a, b) => this.#distances[a]! - this.#distances[b]!);
    return { keys: order.map((i) => this.#keys[i]!), distances: order.map((i) => this.#distances[i]!) };
  }

  #swap(a: number, b: number): void {
    [this.#keys[a], this.#keys[b]] = [this.#keys[b]!, this.#keys[a]!];
    [this.#distances[a], this.#distances[b]] = [this.#distances[b]!, this.#distances[a]!];
  }
}
