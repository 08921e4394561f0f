/** Vectors per block of the arena, past the first: 8,192 × 512 dims × 4 B is 16 MB. */
const blockShift = 13;
const blockRows = 1 << blockShift;
const blockMask = blockRows - 1;

/** Where `gather` appends keys and their vectors (row i of `data` is `keys[i]`). */
export interface VectorSink {
  readonly keys: number[];
  data: Float32Array;
}

/** A slot's "no next slot" in a document's list. */
const none = -1;

/**
 * Float32 copies of an HNSW index's vectors, by chunk seq, with each chunk's document seq: vector search rescores
 * its candidates exactly from here instead of reading the store (about 5 µs per candidate through SQLite against
 * a few hundred nanoseconds here). An arena of fixed blocks (the first grows by doubling up to a block, so a small
 * index holds little); removed slots are reused. Blocks instead of one array that doubles: a doubled array held up
 * to twice the live vectors (300,000 × 512 took 1.08 GB for 0.62 GB of vectors, over a `VECTOR_CACHE_MB` sized for
 * the data, so the copies were dropped and every search read the store), and each doubling copied it all.
 * Each document's slots are linked (`keysOf`, `gather`), so a filter's allowed documents find their vectors here: reading
 * their keys from SQLite (a `json_each` of the seqs) cost more than the exact scan of their vectors (decision 0086).
 */
export class ExactVectors {
  readonly dims: number;
  readonly #slots = new Map<number, number>();
  readonly #free: number[] = [];
  readonly #vectors: Float32Array[];
  readonly #docs: Float64Array[];
  /** The key of each slot, and the next slot of the same document (`none` at its last). */
  readonly #keys: Float64Array[];
  readonly #next: Int32Array[];
  /** Each document's first slot. */
  readonly #firstOf = new Map<number, number>();
  #used = 0;

  constructor(dims: number, capacity = 1024) {
    this.dims = dims;
    const first = Math.min(blockRows, Math.max(1, capacity));
    this.#vectors = [new Float32Array(first * dims)];
    this.#docs = [new Float64Array(first)];
    this.#keys = [new Float64Array(first)];
    this.#next = [new Int32Array(first)];
  }

  get size(): number {
    return this.#slots.size;
  }

  /** Memory held, in bytes (the blocks' capacity, not only the live vectors: at most one block more). */
  get bytes(): number {
    let bytes = 0;
    for (let b = 0; b < this.#docs.length; b += 1) {
      bytes += this.#vectors[b]!.byteLength + this.#docs[b]!.byteLength;
      bytes += this.#keys[b]!.byteLength + this.#next[b]!.byteLength;
    }
    // A map entry per key and per document (V8's ordered hash map: about three words and a bucket).
    return bytes + (this.#slots.size + this.#firstOf.size) * 32;
  }

  set(key: number, doc: number, vector: Float32Array): void {
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#grow();
      this.#slots.set(key, slot);
      this.#link(slot, key, doc);
    } else if (this.#docs[slot >>> blockShift]![slot & blockMask] !== doc) {
      this.#unlink(slot);
      this.#link(slot, key, doc);
    }
    this.#vectors[slot >>> blockShift]!.set(vector.subarray(0, this.dims), (slot & blockMask) * this.dims);
  }

  delete(key: number): void {
    const slot = this.#slots.get(key);
    if (slot === undefined) return;
    this.#unlink(slot);
    this.#slots.delete(key);
    this.#free.push(slot);
  }

  /** Documents with a vector held here. */
  get documents(): number {
    return this.#firstOf.size;
  }

  /**
   * Appends the keys held of document `doc` to `into`, ascending; false when none is held (the document has no vector
   * here, or its write has not reached the index yet).
   */
  keysOf(doc: number, into: number[]): boolean {
    return this.#eachSlot(doc, (slot) => into.push(this.#keys[slot >>> blockShift]![slot & blockMask]!));
  }

  /** Copies the vector of `key` into `target` at `offset` (no view made); false when not held. */
  copyInto(key: number, target: Float32Array, offset: number): boolean {
    const slot = this.#slots.get(key);
    if (slot === undefined) return false;
    const start = (slot & blockMask) * this.dims;
    target.set(this.#vectors[slot >>> blockShift]!.subarray(start, start + this.dims), offset);
    return true;
  }

  /**
   * Appends the keys held of document `doc` to `sink.keys` and their vectors to `sink.data` (row i is keys[i]),
   * growing it by doubling; false when none is held (the document has no vector here, or its write has not reached
   * the index yet). By slot, without a lookup per key; a document's keys in ascending order.
   */
  gather(doc: number, sink: VectorSink): boolean {
    return this.#eachSlot(doc, (slot) => this.#append(slot, sink));
  }

  /**
   * The distance by `metric` from `query` (unit length for `dot`) to the vector of a key, or NaN when not held:
   * read in place, without the view `get` makes (a tail scan compares hundreds of thousands).
   */
  distance(key: number, query: Float32Array, metric: 'dot' | 'l2sq'): number {
    const slot = this.#slots.get(key);
    if (slot === undefined) return NaN;
    const v = this.#vectors[slot >>> blockShift]!;
    const dims = this.dims;
    let at = (slot & blockMask) * dims;
    if (metric === 'l2sq') {
      let sum = 0;
      for (let i = 0; i < dims; i += 1, at += 1) sum += (query[i]! - v[at]!) ** 2;
      return sum;
    }
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    const n = dims - (dims % 4);
    let i = 0;
    for (; i < n; i += 4, at += 4) {
      s0 += query[i]! * v[at]!;
      s1 += query[i + 1]! * v[at + 1]!;
      s2 += query[i + 2]! * v[at + 2]!;
      s3 += query[i + 3]! * v[at + 3]!;
    }
    for (; i < dims; i += 1, at += 1) s0 += query[i]! * v[at]!;
    return 1 - (s0 + s1 + (s2 + s3));
  }

  /** The keys held, in no particular order (a small space's exact scan compares the query with every one). */
  keys(): IterableIterator<number> {
    return this.#slots.keys();
  }

  /** The document seq of a key, or undefined when not held. */
  docOf(key: number): number | undefined {
    const slot = this.#slots.get(key);
    return slot === undefined ? undefined : this.#docs[slot >>> blockShift]![slot & blockMask];
  }

  /** The document and vector of a chunk (a view into the arena: read it before the next write), if held. */
  get(key: number): { doc: number; vector: Float32Array } | undefined {
    const slot = this.#slots.get(key);
    if (slot === undefined) return undefined;
    const start = (slot & blockMask) * this.dims;
    return {
      doc: this.#docs[slot >>> blockShift]![slot & blockMask]!,
      vector: this.#vectors[slot >>> blockShift]!.subarray(start, start + this.dims),
    };
  }

  /**
   * Visits the slots of document `doc` in key order, as the store lists its vectors (whatever order the slots were
   * linked in); false when none is held.
   */
  #eachSlot(doc: number, visit: (slot: number) => void): boolean {
    const first = this.#firstOf.get(doc) ?? none;
    if (first === none) return false;
    if (this.#next[first >>> blockShift]![first & blockMask] === none) {
      visit(first);
      return true;
    }
    // Several (a model's chunks).
    const slots: number[] = [];
    for (let slot = first; slot !== none; slot = this.#next[slot >>> blockShift]![slot & blockMask]!) slots.push(slot);
    const keyOf = (slot: number) => this.#keys[slot >>> blockShift]![slot & blockMask]!;
    for (const slot of slots.sort((x, y) => keyOf(x) - keyOf(y))) visit(slot);
    return true;
  }

  /** Appends the key and vector of `slot` to `sink`, its matrix doubled when full. */
  #append(slot: number, sink: VectorSink): void {
    const dims = this.dims;
    const row = sink.keys.length;
    if ((row + 1) * dims > sink.data.length) {
      const grown = new Float32Array(Math.max(64, row * 2) * dims);
      grown.set(sink.data.subarray(0, row * dims));
      sink.data = grown;
    }
    const start = (slot & blockMask) * dims;
    sink.data.set(this.#vectors[slot >>> blockShift]!.subarray(start, start + dims), row * dims);
    sink.keys.push(this.#keys[slot >>> blockShift]![slot & blockMask]!);
  }

  /** Makes `slot` the key's and the first of its document's list. */
  #link(slot: number, key: number, doc: number): void {
    const block = slot >>> blockShift;
    const at = slot & blockMask;
    this.#docs[block]![at] = doc;
    this.#keys[block]![at] = key;
    this.#next[block]![at] = this.#firstOf.get(doc) ?? none;
    this.#firstOf.set(doc, slot);
  }

  /** Takes `slot` out of its document's list (a document's few slots are walked). */
  #unlink(slot: number): void {
    const doc = this.#docs[slot >>> blockShift]![slot & blockMask]!;
    const after = this.#next[slot >>> blockShift]![slot & blockMask]!;
    let at = this.#firstOf.get(doc) ?? none;
    if (at === slot) {
      if (after === none) this.#firstOf.delete(doc);
      else this.#firstOf.set(doc, after);
      return;
    }
    while (at !== none) {
      const next = this.#next[at >>> blockShift]!;
      if (next[at & blockMask] === slot) {
        next[at & blockMask] = after;
        return;
      }
      at = next[at & blockMask]!;
    }
  }

  /** A free slot at the end: the first block doubles until it is a whole block, then whole blocks are added. */
  #grow(): number {
    const last = this.#docs.length - 1;
    const capacity = last * blockRows + this.#docs[last]!.length;
    if (this.#used === capacity) {
      if (last === 0 && this.#docs[0]!.length < blockRows) {
        const rows = Math.min(blockRows, this.#docs[0]!.length * 2);
        const vectors = new Float32Array(rows * this.dims);
        vectors.set(this.#vectors[0]!);
        const docs = new Float64Array(rows);
        docs.set(this.#docs[0]!);
        const keys = new Float64Array(rows);
        keys.set(this.#keys[0]!);
        const next = new Int32Array(rows);
        next.set(this.#next[0]!);
        this.#vectors[0] = vectors;
        this.#docs[0] = docs;
        this.#keys[0] = keys;
        this.#next[0] = next;
      } else {
        this.#vectors.push(new Float32Array(blockRows * this.dims));
        this.#docs.push(new Float64Array(blockRows));
        this.#keys.push(new Float64Array(blockRows));
        this.#next.push(new Int32Array(blockRows));
      }
    }
    return this.#used++;
  }
}

/** Dot product with four independent sums (about twice as fast as one: the additions no longer wait on each other). */
export function dotProduct(a: Float32Array, b: Float32Array): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const n = a.length - (a.length % 4);
  let i = 0;
  for (; i < n; i += 4) {
    s0 += a[i]! * b[i]!;
    s1 += a[i + 1]! * b[i + 1]!;
    s2 += a[i + 2]! * b[i + 2]!;
    s3 += a[i + 3]! * b[i + 3]!;
  }
  for (; i < a.length; i += 1) s0 += a[i]! * b[i]!;
  return s0 + s1 + (s2 + s3);
}

/** Squared euclidean distance. */
export function squaredDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i]! - b[i]!) ** 2;
  return sum;
}
