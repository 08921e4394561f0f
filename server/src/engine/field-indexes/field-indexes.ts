import type { Collection, FieldIndexDeclarations, FieldIndexKind } from '@godb/contract';
import type { Db } from '../storage/database.js';
import { inSlices } from '../in-slices.js';
import { FieldIndexRows, type BuildRow, type GeoBox, type ValueRange } from './field-index-rows.js';
import { FieldLists } from './field-lists.js';
import { fieldValue, indexedValue, wrongTypeError, type FilterableDocument } from './field-values.js';

/** Documents a build indexes per slice (a few milliseconds; writes and searches are served between slices). */
const documentsPerSlice = 1000;

/** One declared index as a collection's info shows it. */
export interface FieldIndexInfo {
  readonly kind: FieldIndexKind;
  readonly state: 'building' | 'ready' | 'failed';
  readonly progress: number;
  readonly documents: number;
  readonly postings: number;
  readonly error?: string;
}

/** A ready index as the planner sees it. */
export interface ReadyIndex {
  readonly kind: FieldIndexKind;
  /** Whether a document held two values or more (then conditions on the field cannot be merged into one range). */
  readonly multi: boolean;
}

/** One index's postings in memory, read document by document (see FieldIndexReader.holding). */
export interface FieldHolding {
  /** Whether the document has a value (not missing, not null) for the field. */
  has(seq: number): boolean;
  /** Whether the document holds a key that passes `test`. */
  some(seq: number, test: (key: string | number) => boolean): boolean;
}

/** What a planner reads of a collection's ready indexes. */
export interface FieldIndexReader {
  /** The collection's ready indexes, by path. */
  ready(tenantId: string, collection: string): ReadonlyMap<string, ReadyIndex>;
  equal(tenantId: string, collection: string, path: string, keys: readonly (string | number)[]): number[];
  range(tenantId: string, collection: string, path: string, range: ValueRange): number[];
  present(tenantId: string, collection: string, path: string): number[];
  live(tenantId: string, collection: string): number[];
  /** The planner's estimates: the same lookups counted, stopping at `cap` (one key for `countKey`). */
  countKey(tenantId: string, collection: string, path: string, key: string | number, cap: number): number;
  countRange(tenantId: string, collection: string, path: string, range: ValueRange, cap: number): number;
  countPresent(tenantId: string, collection: string, path: string, cap: number): number;
  /** Located live documents of a collection in a box, with their exact coordinates, at most `cap` (a geo index). */
  pointsInBox(
    tenantId: string,
    collection: string,
    box: GeoBox,
    cap: number,
  ): { seq: number; lat: number; lon: number }[];
  /** The postings of a path read by document, from memory (undefined inside a write transaction: use valuesOf). */
  holding(tenantId: string, collection: string, path: string): FieldHolding | undefined;
  /** Of documents `seqs` of the collection, which have a value for the field, and the keys each holds. */
  valuesOf(
    tenantId: string,
    collection: string,
    seqs: readonly number[],
    path: string,
  ): { present: Set<number>; keys: Map<number, (string | number)[]> };
}

/**
 * The field indexes of collections (issue #39): postings of each declared field's values, written by every
 * document write in its transaction (DocumentWrites posts, the store's unindexing of a version removes them), built
 * over the documents that existed when the index was declared one slice per turn, and read by the filter planner.
 * The postings and builds are derived: a node that lacks them (a tenant restore, a copied store) builds them again.
 * Lookups outside a write transaction read the postings from memory (FieldLists, decision 0077), SQLite inside one.
 */
export class FieldIndexes implements FieldIndexReader {
  readonly #rows: FieldIndexRows;
  readonly #lists: FieldLists;
  readonly #schedule: (slice: () => boolean) => void;
  #building = false;

  constructor(db: Db, schedule: (slice: () => boolean) => void = inSlices) {
    this.#rows = new FieldIndexRows(db);
    this.#lists = FieldLists.of(db);
    this.#schedule = schedule;
  }

  /**
   * Posts a document version's values of every index its collection declares, inside the write's transaction;
   * refuses (VALIDATION_FAILED, naming `field(path)`) a value of another type than declared.
   */
  post(
    tenantId: string,
    collection: Collection | undefined,
    seq: number,
    doc: FilterableDocument,
    field: (path: string) => string,
  ): void {
    const indexes = collection?.indexes;
    if (!indexes) return;
    const posts: [string, readonly (string | number)[]][] = [];
    for (const [path, kind] of Object.entries(indexes)) {
      if (kind === 'geo') continue; // the R*Tree holds the location (see field-values.ts)
      const value = indexedValue(kind, fieldValue(doc, path));
      if ('wrong' in value) throw wrongTypeError(field(path), path, kind, value.wrong, collection.name);
      if (value.present) posts.push([path, value.keys]);
    }
    for (const [path, keys] of posts) {
      this.#rows.post(tenantId, collection.name, path, seq, keys);
      this.#lists.posted(tenantId, collection.name, path, seq);
    }
  }

  /**
   * Makes the builds follow a collection's declaration, inside the caller's transaction: an index no longer declared
   * (or declared with another kind) is dropped, a new one starts building. Call `resume` after the commit.
   */
  declare(tenantId: string, collection: string, indexes: FieldIndexDeclarations): void {
    const builds = new Map(this.#rows.builds(tenantId, collection).map((b) => [b.path, b]));
    for (const [path, build] of builds) {
      if (indexes[path] !== build.kind) this.#drop(tenantId, collection, path);
    }
    for (const [path, kind] of Object.entries(indexes)) {
      if (builds.get(path)?.kind === kind) continue;
      // Postings a write made before the build existed (after a restore) are indexed again by the build.
      this.#drop(tenantId, collection, path);
      this.#rows.startBuild(tenantId, collection, path, kind);
    }
  }

  /** Drops every index of a collection (it is being removed), inside the caller's transaction. */
  dropCollection(tenantId: string, collection: string): void {
    this.#drop(tenantId, collection);
  }

  // A dropped index's list is forgotten even if the drop rolls back: the list is built again on its next use.
  #drop(tenantId: string, collection: string, path?: string): void {
    this.#rows.drop(tenantId, collection, path);
    this.#lists.forget(tenantId, collection, path);
  }

  /**
   * At start: declarations without a build (a restored tenant's, a copied store's) start one; every build under
   * way continues in the background.
   */
  start(): void {
    this.#rows.transaction(() => {
      for (const c of this.#rows.declaring()) {
        const declared = JSON.parse(c.indexes) as FieldIndexDeclarations;
        const built = new Map(this.#rows.builds(c.tenant_id, c.name).map((b) => [b.path, b.kind]));
        const missing = Object.entries(declared).some(([path, kind]) => built.get(path) !== kind);
        if (missing || built.size !== Object.keys(declared).length) this.declare(c.tenant_id, c.name, declared);
      }
    });
    if (this.#rows.nextBuilding()) this.resume();
  }

  /** Builds what is building, one slice per turn, until nothing is (a second call while it runs does nothing). */
  resume(): void {
    if (this.#building || !this.#rows.open) return;
    this.#building = true;
    this.#schedule(() => {
      const done = this.#slice();
      if (done) this.#building = false;
      return done;
    });
  }

  /** Whether a build is under way (tests wait for it). */
  get building(): boolean {
    return this.#building;
  }

  /** Indexes one slice of the first build under way; answers true when none is left. */
  #slice(): boolean {
    if (!this.#rows.open) return true;
    if (this.#rows.inTransaction) return false;
    return this.#rows.transaction(() => {
      const build = this.#rows.nextBuilding();
      if (!build) return true;
      this.#indexSome(build);
      return false;
    });
  }

  #indexSome(b: BuildRow): void {
    const docs = this.#rows.documents(b.tenant_id, b.collection, b.built_through, b.target, documentsPerSlice);
    for (const row of docs) {
      const doc: FilterableDocument = {
        id: row.id,
        title: row.title,
        content: '',
        primary_table: b.collection,
        visibility: row.visibility,
        created_at: row.created_at,
        updated_at: row.updated_at,
        parent_doc_id: row.parent_doc_id,
        cluster: null,
        fields: JSON.parse(row.fields) as FilterableDocument['fields'],
      };
      const value = indexedValue(b.kind, fieldValue(doc, b.path));
      if ('wrong' in value) {
        const wrong = JSON.stringify(value.wrong) ?? String(value.wrong);
        this.#rows.fail(b, `document ${row.id} has ${b.path} = ${wrong}, not ${b.kind}`);
        this.#lists.forget(b.tenant_id, b.collection, b.path);
        return;
      }
      this.#rows.unpostPath(row.seq, b.path);
      if (value.present) this.#rows.post(b.tenant_id, b.collection, b.path, row.seq, value.keys);
    }
    const last = docs.length < documentsPerSlice ? b.target : docs[docs.length - 1]!.seq;
    this.#rows.progress(b, last, b.done + docs.length, last >= b.target);
  }

  /** Each declared index of a collection with its state, progress and size. */
  info(tenantId: string, collection: string): Record<string, FieldIndexInfo> {
    const out: Record<string, FieldIndexInfo> = {};
    for (const b of this.#rows.builds(tenantId, collection)) {
      const counts =
        b.kind === 'geo'
          ? { documents: this.#rows.located(tenantId, collection), postings: 0 }
          : this.#rows.counts(tenantId, collection, b.path);
      out[b.path] = {
        kind: b.kind,
        state: b.state,
        progress: b.state === 'ready' ? 1 : b.total === 0 ? 0 : Math.min(1, b.done / b.total),
        ...counts,
        ...(b.error !== null && { error: b.error }),
      };
    }
    return out;
  }

  ready(tenantId: string, collection: string): ReadonlyMap<string, ReadyIndex> {
    return new Map(
      this.#rows
        .builds(tenantId, collection)
        .filter((b) => b.state === 'ready')
        .map((b) => [b.path, { kind: b.kind, multi: b.multi === 1 }]),
    );
  }

  equal(tenantId: string, collection: string, path: string, keys: readonly (string | number)[]): number[] {
    if (keys.length === 0) return [];
    const list = this.#lists.list(tenantId, collection, path);
    return list ? list.equal(keys) : this.#rows.equal(tenantId, collection, path, keys);
  }

  range(tenantId: string, collection: string, path: string, range: ValueRange): number[] {
    const list = this.#lists.list(tenantId, collection, path);
    return list ? list.range(range) : this.#rows.range(tenantId, collection, path, range);
  }

  present(tenantId: string, collection: string, path: string): number[] {
    const list = this.#lists.list(tenantId, collection, path);
    return list ? list.present() : this.#rows.present(tenantId, collection, path);
  }

  live(tenantId: string, collection: string): number[] {
    return this.#rows.live(tenantId, collection);
  }

  countKey(tenantId: string, collection: string, path: string, key: string | number, cap: number): number {
    const list = this.#lists.list(tenantId, collection, path);
    return list ? list.countKey(key, cap) : this.#rows.countKey(tenantId, collection, path, key, cap);
  }

  countRange(tenantId: string, collection: string, path: string, range: ValueRange, cap: number): number {
    const list = this.#lists.list(tenantId, collection, path);
    return list ? list.countRange(range, cap) : this.#rows.countRange(tenantId, collection, path, range, cap);
  }

  countPresent(tenantId: string, collection: string, path: string, cap: number): number {
    const list = this.#lists.list(tenantId, collection, path);
    return list ? list.countPresent(cap) : this.#rows.countPresent(tenantId, collection, path, cap);
  }

  pointsInBox(
    tenantId: string,
    collection: string,
    box: GeoBox,
    cap: number,
  ): { seq: number; lat: number; lon: number }[] {
    return this.#rows.pointsInBox(tenantId, collection, box, cap);
  }

  holding(tenantId: string, collection: string, path: string): FieldHolding | undefined {
    return this.#lists.list(tenantId, collection, path);
  }

  valuesOf(
    tenantId: string,
    collection: string,
    seqs: readonly number[],
    path: string,
  ): { present: Set<number>; keys: Map<number, (string | number)[]> } {
    const present = new Set<number>();
    const keys = new Map<number, (string | number)[]>();
    const list = this.#lists.list(tenantId, collection, path);
    if (list) {
      for (const seq of seqs) {
        const held = list.keysOf(seq);
        if (held === undefined) continue;
        present.add(seq);
        if (held.length > 0) keys.set(seq, held);
      }
      return { present, keys };
    }
    for (let i = 0; i < seqs.length; i += 10_000) {
      for (const { seq, value } of this.#rows.valuesOf(JSON.stringify(seqs.slice(i, i + 10_000)), path)) {
        if (value === null) present.add(seq);
        else {
          const held = keys.get(seq);
          if (held) held.push(value);
          else keys.set(seq, [value]);
        }
      }
    }
    return { present, keys };
  }
}
