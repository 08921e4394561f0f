import type { ValueRange } from './field-index-rows.js';

/** A key as SQLite holds it in field_postings.value: a number, or text (datetime and keyword). */
export type FieldKey = string | number;

/** SQLite's order of values of the ANY column: numbers before text, text by code unit (ASCII dates, keywords). */
export function compareKeys(a: FieldKey, b: FieldKey): number {
  if (typeof a === typeof b) return a < b ? -1 : a > b ? 1 : 0;
  return typeof a === 'number' ? -1 : 1;
}

/** Sorted document seqs, appended in ascending order and grown by doubling. */
class Seqs {
  data = new Uint32Array(4);
  length = 0;

  push(seq: number): void {
    if (this.length > 0 && seq <= this.data[this.length - 1]!) return this.insert(seq);
    if (this.length === this.data.length) this.#grow();
    this.data[this.length] = seq;
    this.length += 1;
  }

  /** A seq below the last one (a reconciled write older than the list's newest): kept in order. */
  insert(seq: number): void {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.data[mid]! < seq) lo = mid + 1;
      else hi = mid;
    }
    if (this.data[lo] === seq && lo < this.length) return;
    if (this.length === this.data.length) this.#grow();
    this.data.copyWithin(lo + 1, lo, this.length);
    this.data[lo] = seq;
    this.length += 1;
  }

  #grow(): void {
    const grown = new Uint32Array(this.data.length * 2);
    grown.set(this.data);
    this.data = grown;
  }
}

/**
 * A key's seqs, ascending: none (-1), one (a number: most keys of a number field with many distinct values hold one
 * or two documents, and a typed array per key cost some 150 bytes more), or an array of small integers.
 */
type KeySeqs = number | number[];

/** Adds `seq` to a key's seqs, in order (once). */
function withSeq(l: KeySeqs, seq: number): KeySeqs {
  if (typeof l === 'number') return l < 0 || l === seq ? seq : l < seq ? [l, seq] : [seq, l];
  if (l.length === 0 || l[l.length - 1]! < seq) l.push(seq);
  else {
    let lo = 0;
    let hi = l.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (l[mid]! < seq) lo = mid + 1;
      else hi = mid;
    }
    if (l[lo] !== seq) l.splice(lo, 0, seq);
  }
  return l;
}

/** Forward slots: what a seq holds in the list. */
const absent = -1;
const several = -2;
const noKeys = -3;

/**
 * One declared index's postings in memory (issue #39, decision 0077): per distinct key the seqs holding it (sorted,
 * with a live count), the keys in SQLite's order (so a range is a binary search and a walk over the keys inside it),
 * the seqs that have a value at all, and a forward slot per seq (its key id, or several, or none), which answers a
 * document's values without a lookup and says whether a seq in a list is still live: a removed document only clears
 * its slot, and the lists are rewritten without the removed ones once they pass a quarter of the postings.
 */
export class FieldList {
  readonly #ids = new Map<FieldKey, number>();
  readonly #keys: FieldKey[] = [];
  readonly #lists: KeySeqs[] = [];
  /** Live documents holding each key (by id). */
  #counts = new Int32Array(16);
  /** Key ids in SQLite's order of their keys. */
  #order = new Int32Array(16);
  #present = new Seqs();
  #slots = new Int32Array(0).fill(absent);
  #base = 0;
  /** Keys of documents holding two or more distinct keys. */
  readonly #multi = new Map<number, Int32Array>();
  /** Live documents with a value, postings (document, distinct key) held, and dead entries still in the lists. */
  documents = 0;
  postings = 0;
  #dead = 0;
  /** The highest seq ever added. */
  maxSeq = 0;

  /** Whether the list holds the seq (a live document version with postings of this field). */
  has(seq: number): boolean {
    return this.#slot(seq) !== absent;
  }

  /** Adds a document version's keys (its seq not held). */
  add(seq: number, keys: readonly FieldKey[]): void {
    if (this.has(seq)) return;
    const ids = [...new Set(keys.map((k) => this.#id(k)))];
    if (seq <= this.maxSeq && this.#dead > 0) this.compact(); // a dead entry of the seq must not come back to life
    this.#reserve(seq);
    this.#slots[seq - this.#base] = ids.length === 0 ? noKeys : ids.length === 1 ? ids[0]! : several;
    if (ids.length > 1) this.#multi.set(seq, Int32Array.from(ids));
    for (const id of ids) {
      this.#lists[id] = withSeq(this.#lists[id]!, seq);
      this.#counts[id] = this.#counts[id]! + 1;
    }
    this.#present.push(seq);
    this.documents += 1;
    this.postings += ids.length;
    if (seq > this.maxSeq) this.maxSeq = seq;
  }

  /**
   * One posting as the build reads them in the lookup index's order: every presence row (`key` null) first, in seq
   * order, then each key's seqs ascending, the keys ascending.
   */
  load(seq: number, key: FieldKey | null): void {
    if (key === null) {
      if (this.has(seq)) return;
      this.#reserve(seq);
      this.#slots[seq - this.#base] = noKeys;
      this.#present.push(seq);
      this.documents += 1;
      if (seq > this.maxSeq) this.maxSeq = seq;
      return;
    }
    const slot = this.#slot(seq);
    if (slot === absent) return; // a key without its presence row: not a posted document
    const id = this.#id(key);
    if (slot === id || (slot === several && this.#multi.get(seq)!.includes(id))) return;
    if (slot === noKeys) this.#slots[seq - this.#base] = id;
    else {
      const held = slot === several ? this.#multi.get(seq)! : Int32Array.of(slot);
      const ids = new Int32Array(held.length + 1);
      ids.set(held);
      ids[held.length] = id;
      this.#multi.set(seq, ids);
      this.#slots[seq - this.#base] = several;
    }
    this.#lists[id] = withSeq(this.#lists[id]!, seq);
    this.#counts[id] = this.#counts[id]! + 1;
    this.postings += 1;
  }

  /** Removes a document version (its slot cleared; its entries in the lists go at the next compaction). */
  remove(seq: number): void {
    const ids = this.#idsOf(seq);
    if (ids === undefined) return;
    for (let i = 0; i < ids.length; i += 1) this.#counts[ids[i]!] = this.#counts[ids[i]!]! - 1;
    this.#slots[seq - this.#base] = absent;
    this.#multi.delete(seq);
    this.documents -= 1;
    this.postings -= ids.length;
    this.#dead += ids.length + 1;
    if (this.#dead > 64 && this.#dead * 4 > this.postings + this.documents) this.compact();
  }

  /** Rewrites the lists without their dead entries. */
  compact(): void {
    const live = (s: Seqs) => {
      const kept = new Seqs();
      kept.data = new Uint32Array(Math.max(4, s.length));
      for (let i = 0; i < s.length; i += 1) {
        const seq = s.data[i]!;
        if (this.#slot(seq) !== absent) kept.data[kept.length++] = seq;
      }
      return kept;
    };
    for (let id = 0; id < this.#lists.length; id += 1) {
      // A key held by no live document any more: emptied, its key kept for its id.
      const kept = this.#collectKey(id, []);
      this.#lists[id] = kept.length === 0 ? -1 : kept.length === 1 ? kept[0]! : kept;
    }
    this.#present = live(this.#present);
    this.#dead = 0;
  }

  /** Seqs holding any of `keys` (a document holding two of them comes twice). */
  equal(keys: readonly FieldKey[]): number[] {
    const out: number[] = [];
    for (const key of new Set(keys)) {
      const id = this.#ids.get(key);
      if (id !== undefined) this.#collectKey(id, out);
    }
    return out;
  }

  /** Seqs holding a key in the range (a document holding two such keys comes twice). */
  range(r: ValueRange): number[] {
    const out: number[] = [];
    const [from, to] = this.#span(r);
    for (let i = from; i < to; i += 1) this.#collectKey(this.#order[i]!, out);
    return out;
  }

  /** Seqs that have a value (not missing, not null). */
  present(): number[] {
    return this.#collect(this.#present, []);
  }

  /** Documents holding the key, counted up to `cap`. */
  countKey(key: FieldKey, cap: number): number {
    const id = this.#ids.get(key);
    return id === undefined ? 0 : Math.min(cap, this.#counts[id]!);
  }

  /** Postings (document, key) in the range, counted up to `cap`. */
  countRange(r: ValueRange, cap: number): number {
    let n = 0;
    const [from, to] = this.#span(r);
    for (let i = from; i < to && n < cap; i += 1) n += this.#counts[this.#order[i]!]!;
    return Math.min(n, cap);
  }

  countPresent(cap: number): number {
    return Math.min(cap, this.documents);
  }

  /** The keys a held document holds (undefined: not held; empty: a value without keys, such as []). */
  keysOf(seq: number): FieldKey[] | undefined {
    const ids = this.#idsOf(seq);
    return ids && Array.from(ids, (id) => this.#keys[id]!);
  }

  /** Whether a held document holds a key passing `test` (false when not held). */
  some(seq: number, test: (key: FieldKey) => boolean): boolean {
    const slot = this.#slot(seq);
    if (slot >= 0) return test(this.#keys[slot]!);
    if (slot !== several) return false;
    for (const id of this.#multi.get(seq)!) if (test(this.#keys[id]!)) return true;
    return false;
  }

  /** Memory the list holds, in bytes: typed arrays at their capacity, and an estimate for the keys' map. */
  bytes(): number {
    let total = this.#counts.byteLength + this.#order.byteLength + this.#present.data.byteLength;
    total += this.#slots.byteLength;
    // A small integer in an array: 8 bytes; an array of them: some 32 more.
    for (const l of this.#lists) total += typeof l === 'number' ? 8 : 40 + l.length * 8;
    for (const key of this.#keys) total += 56 + (typeof key === 'string' ? key.length * 2 : 0);
    for (const ids of this.#multi.values()) total += ids.byteLength + 48;
    return total;
  }

  #slot(seq: number): number {
    const at = seq - this.#base;
    return at >= 0 && at < this.#slots.length ? this.#slots[at]! : absent;
  }

  #idsOf(seq: number): ArrayLike<number> | undefined {
    const slot = this.#slot(seq);
    if (slot === absent) return undefined;
    if (slot === noKeys) return [];
    if (slot === several) return this.#multi.get(seq)!;
    return [slot];
  }

  #collectKey(id: number, out: number[]): number[] {
    const l = this.#lists[id]!;
    if (typeof l === 'number') {
      if (l >= 0 && this.#slot(l) !== absent) out.push(l);
      return out;
    }
    for (const seq of l) if (this.#slot(seq) !== absent) out.push(seq);
    return out;
  }

  #collect(s: Seqs, out: number[]): number[] {
    const { data, length } = s;
    for (let i = 0; i < length; i += 1) {
      const seq = data[i]!;
      if (this.#slot(seq) !== absent) out.push(seq);
    }
    return out;
  }

  /** Positions in #order of the first key in the range and past the last. */
  #span(r: ValueRange): [number, number] {
    const n = this.#keys.length;
    // The first position whose key is not below `bound` (or, `after`, not at or below it).
    const lowest = (bound: FieldKey, after: boolean) => {
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const c = compareKeys(this.#keys[this.#order[mid]!]!, bound);
        if (c < 0 || (after && c === 0)) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    let from = 0;
    let to = n;
    if (r.gt !== undefined) from = Math.max(from, lowest(r.gt, true));
    if (r.gte !== undefined) from = Math.max(from, lowest(r.gte, false));
    if (r.lt !== undefined) to = Math.min(to, lowest(r.lt, false));
    if (r.lte !== undefined) to = Math.min(to, lowest(r.lte, true));
    return [from, Math.max(from, to)];
  }

  #id(key: FieldKey): number {
    let id = this.#ids.get(key);
    if (id !== undefined) return id;
    id = this.#keys.length;
    this.#ids.set(key, id);
    this.#keys.push(key);
    this.#lists.push(-1);
    if (id >= this.#counts.length) {
      const counts = new Int32Array(this.#counts.length * 2);
      counts.set(this.#counts);
      this.#counts = counts;
      const order = new Int32Array(this.#order.length * 2);
      order.set(this.#order);
      this.#order = order;
    }
    // Keys come in order when the list is built from SQLite's index; a new key of a write is placed by search.
    let at = id;
    if (id > 0 && compareKeys(this.#keys[this.#order[id - 1]!]!, key) > 0) {
      let lo = 0;
      let hi = id;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compareKeys(this.#keys[this.#order[mid]!]!, key) < 0) lo = mid + 1;
        else hi = mid;
      }
      at = lo;
      this.#order.copyWithin(at + 1, at, id);
    }
    this.#order[at] = id;
    return id;
  }

  /** Makes room for a slot of `seq`. */
  #reserve(seq: number): void {
    if (this.#slots.length === 0) {
      this.#base = seq;
      this.#slots = new Int32Array(1024).fill(absent);
    }
    if (seq < this.#base) {
      const shift = this.#base - seq + Math.max(1024, this.#slots.length >> 1);
      const slots = new Int32Array(this.#slots.length + shift).fill(absent);
      slots.set(this.#slots, shift);
      this.#slots = slots;
      this.#base -= shift;
      if (this.#base < 0) {
        this.#slots = this.#slots.subarray(-this.#base).slice();
        this.#base = 0;
      }
    }
    const at = seq - this.#base;
    if (at >= this.#slots.length) {
      const slots = new Int32Array(Math.max(at + 1, this.#slots.length * 2)).fill(absent);
      slots.set(this.#slots);
      this.#slots = slots;
    }
  }
}
