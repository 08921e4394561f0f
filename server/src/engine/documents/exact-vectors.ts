/**
 * Float32 copies of an HNSW index's vectors, by chunk seq, with each chunk's document seq: vector search rescores
 * its candidates exactly from here instead of reading the store (about 5 µs per candidate through SQLite against
 * a few hundred nanoseconds here). One contiguous arena; removed slots are reused.
 */
export class ExactVectors {
  readonly dims: number;
  readonly #slots = new Map<number, number>();
  readonly #free: number[] = [];
  #vectors: Float32Array;
  #docs: Float64Array;
  #used = 0;

  constructor(dims: number, capacity = 1024) {
    this.dims = dims;
    this.#vectors = new Float32Array(capacity * dims);
    this.#docs = new Float64Array(capacity);
  }

  get size(): number {
    return this.#slots.size;
  }

  /** Memory held, in bytes (the arena's capacity, not only the live vectors). */
  get bytes(): number {
    return this.#vectors.byteLength + this.#docs.byteLength;
  }

  set(key: number, doc: number, vector: Float32Array): void {
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#grow();
      this.#slots.set(key, slot);
    }
    this.#vectors.set(vector.subarray(0, this.dims), slot * this.dims);
    this.#docs[slot] = doc;
  }

  delete(key: number): void {
    const slot = this.#slots.get(key);
    if (slot === undefined) return;
    this.#slots.delete(key);
    this.#free.push(slot);
  }

  /** The document and vector of a chunk (a view into the arena: read it before the next write), if held. */
  get(key: number): { doc: number; vector: Float32Array } | undefined {
    const slot = this.#slots.get(key);
    if (slot === undefined) return undefined;
    const start = slot * this.dims;
    return { doc: this.#docs[slot]!, vector: this.#vectors.subarray(start, start + this.dims) };
  }

  #grow(): number {
    if (this.#used === this.#docs.length) {
      const capacity = this.#docs.length * 2;
      const vectors = new Float32Array(capacity * this.dims);
      vectors.set(this.#vectors);
      const docs = new Float64Array(capacity);
      docs.set(this.#docs);
      this.#vectors = vectors;
      this.#docs = docs;
    }
    return this.#used++;
  }
}
