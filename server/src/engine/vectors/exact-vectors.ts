/** Vectors per block of the arena, past the first: 8,192 × 512 dims × 4 B is 16 MB. */
const blockShift = 13;
const blockRows = 1 << blockShift;
const blockMask = blockRows - 1;

/**
 * Float32 copies of an HNSW index's vectors, by chunk seq, with each chunk's document seq: vector search rescores
 * its candidates exactly from here instead of reading the store (about 5 µs per candidate through SQLite against
 * a few hundred nanoseconds here). An arena of fixed blocks (the first grows by doubling up to a block, so a small
 * index holds little); removed slots are reused. Blocks instead of one array that doubles: a doubled array held up
 * to twice the live vectors (300,000 × 512 took 1.08 GB for 0.62 GB of vectors, over a `VECTOR_CACHE_MB` sized for
 * the data, so the copies were dropped and every search read the store), and each doubling copied it all.
 */
export class ExactVectors {
  readonly dims: number;
  readonly #slots = new Map<number, number>();
  readonly #free: number[] = [];
  readonly #vectors: Float32Array[];
  readonly #docs: Float64Array[];
  #used = 0;

  constructor(dims: number, capacity = 1024) {
    this.dims = dims;
    const first = Math.min(blockRows, Math.max(1, capacity));
    this.#vectors = [new Float32Array(first * dims)];
    this.#docs = [new Float64Array(first)];
  }

  get size(): number {
    return this.#slots.size;
  }

  /** Memory held, in bytes (the blocks' capacity, not only the live vectors: at most one block more). */
  get bytes(): number {
    let bytes = 0;
    for (let b = 0; b < this.#docs.length; b += 1) bytes += this.#vectors[b]!.byteLength + this.#docs[b]!.byteLength;
    return bytes;
  }

  set(key: number, doc: number, vector: Float32Array): void {
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#grow();
      this.#slots.set(key, slot);
    }
    this.#vectors[slot >>> blockShift]!.set(vector.subarray(0, this.dims), (slot & blockMask) * this.dims);
    this.#docs[slot >>> blockShift]![slot & blockMask] = doc;
  }

  delete(key: number): void {
    const slot = this.#slots.get(key);
    if (slot === undefined) return;
    this.#slots.delete(key);
    this.#free.push(slot);
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
        this.#vectors[0] = vectors;
        this.#docs[0] = docs;
      } else {
        this.#vectors.push(new Float32Array(blockRows * this.dims));
        this.#docs.push(new Float64Array(blockRows));
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
