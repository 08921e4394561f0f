import {
  createError,
  GoDBError,
  isGoDBError,
  type Collection,
  type CreateCollectionRequest,
  type UpdateCollectionRequest,
  type VectorSettings,
} from '@godb/contract';
import type { Db } from '../storage/database.js';
import { principalsOf } from '../access/access.js';
import type { Viewer } from '../access/viewer.js';
import { CollectionRows } from './collection-rows.js';
import { refuseBadDeclarations } from '../field-indexes/field-values.js';
import { checkedAnalysis } from '../text/analysis-settings.js';
import { LRUCache } from 'lru-cache';
import { clientSpaceKey, defaultHnsw, modelSpace, parseSpaceKey, type SpaceSettings } from './vector-space.js';

/** The models GoDB can embed with, by name (the Embedder's registry). */
export interface ModelCatalogue {
  resolve(name?: string): { readonly name: string; readonly dimensions: number };
}

/** Live documents, their chunks and each vector's live vectors, as one viewer may read them. */
export interface CollectionCounts {
  readonly documents: number;
  readonly chunks: number;
  readonly vectors: Record<string, number>;
}

/** Counts kept per (tenant, collection, principals), while the store is unchanged and no grant expired. */
interface KeptCounts {
  readonly changes: number;
  readonly until: number;
  readonly counts: CollectionCounts;
}

/** Freezes an object and every object it holds. */
function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (typeof inner === 'object' && inner !== null) deepFreeze(inner);
  return Object.freeze(value);
}

/** The vector a document gives, by name, resolved against its collection. */
export interface GivenVector {
  readonly name: string;
  readonly vector: Float32Array;
  /** Where it came from in the request, for errors (`body.vectors.image`). */
  readonly field: string;
}

/** The collection of documents written without primary_table. */
export const defaultCollection = 'documents';

/** The name a document's unnamed `vector` gets in a collection that has no vector of its own yet. */
export const defaultVectorName = 'default';

/**
 * Collections: per tenant, the settings of the documents that name them in `primary_table` (their vectors, each
 * with a size, distance, storage kind and HNSW parameters, filled by a model or given by clients). A collection is
 * created explicitly (POST /collections) or implicitly by the first document that names it, which then fixes the
 * vectors it uses: one per embedding model, named after the model, and one per name a client gives.
 */
export class Collections {
  /** Every SQL statement of collections. */
  readonly #rows: CollectionRows;
  readonly #counts = new LRUCache<string, KeptCounts>({ max: 256 });
  readonly #kept = new LRUCache<string, { readonly changes: number; readonly collection?: Collection }>({ max: 256 });
  readonly #models: ModelCatalogue;
  /** The collections read during holding(), with the rows' write count they were read at; null outside it. */
  #held: Map<string, { readonly writes: number; readonly collection: Collection | undefined }> | null = null;

  constructor(db: Db, models: ModelCatalogue) {
    this.#rows = new CollectionRows(db);
    this.#models = models;
  }

  /**
   * The tenant's collection of that name. Every document written reads its collection (twice: to prepare it and in
   * its transaction), so outside a transaction the row read is kept while the store is unchanged (SQLite's
   * total_changes(), as for counts): an import prepares a batch's lines with one read. Answers are frozen, as kept
   * ones are shared.
   */
  get(tenantId: string, name: string): Collection | undefined {
    // Read inside a write transaction, a row may be rolled back: not kept beyond the write (holding), and frozen all
    // the same, as every answer.
    const key = `${tenantId}\u0000${name}`;
    if (this.#rows.inTransaction) {
      const held = this.#held?.get(key);
      if (held && held.writes === this.#rows.writes) return held.collection;
      const found = this.#rows.get(tenantId, name);
      const collection = found && deepFreeze(found);
      this.#held?.set(key, { writes: this.#rows.writes, collection });
      return collection;
    }
    const changes = this.#rows.changes();
    const kept = this.#kept.get(key);
    if (kept && kept.changes === changes) return kept.collection;
    const collection = this.#rows.get(tenantId, name);
    this.#kept.set(key, { changes, collection: collection && deepFreeze(collection) });
    return collection;
  }

  /**
   * Runs `write` (inside a write transaction) with the collections it reads kept until a collection row is written
   * through this object or `write` ends: a write of 500 documents read its collection about 1,500 times, each a row
   * read, three JSON.parse and a deep freeze (~9 % of an import's writer, profiled). Nothing else writes collection
   * rows during a document write, and what `write` read ends with it (a rollback included).
   *
   * @example collections.holding(() => documents.map((d) => collections.get(tenantId, d.primaryTable)));
   */
  holding<T>(write: () => T): T {
    if (this.#held) return write();
    this.#held = new Map();
    try {
      return write();
    } finally {
      this.#held = null;
    }
  }

  /** The collection, or 404 naming it. */
  require(tenantId: string, name: string, field?: string): Collection {
    const found = this.get(tenantId, name);
    if (!found) throw createError('NOT_FOUND', { resource: 'Collection', id: name }, field ? { field } : {});
    return found;
  }

  list(tenantId: string): Collection[] {
    return this.#rows.list(tenantId);
  }

  create(tenantId: string, input: CreateCollectionRequest, now: number): Collection {
    if (this.get(tenantId, input.name))
      throw createError('COLLECTION_EXISTS', { name: input.name }, { field: 'body.name' });
    const vectors: Record<string, VectorSettings> = {};
    for (const [name, given] of Object.entries(input.vectors ?? {})) {
      const field = `body.vectors.${name}`;
      let dimensions = given.dimensions;
      if (given.model !== undefined) {
        const model = this.#resolveModel(given.model, `${field}.model`);
        if (dimensions !== undefined && dimensions !== model.dimensions) {
          throw createError(
            'VALIDATION_FAILED',
            { detail: `${field}.dimensions is ${dimensions} but model ${model.name} gives ${model.dimensions}` },
            { field: `${field}.dimensions` },
          );
        }
        // Model vectors share the tenant's index of that model (cosine over unit vectors, f16) with every
        // collection that uses the model.
        if (given.multi)
          throw createError(
            'VALIDATION_FAILED',
            {
              detail: `${field}.multi: a vector filled by a model holds one vector per chunk; give a multi-vector yourself (leave out model)`,
            },
            { field: `${field}.multi` },
          );
        if ((given.distance ?? 'cosine') !== 'cosine' || (given.storage ?? 'f16') !== 'f16' || given.hnsw) {
          throw createError(
            'VALIDATION_FAILED',
            {
              detail: `${field}: a vector filled by a model is indexed with the model's index (distance cosine, storage f16, default HNSW settings); leave out distance, storage and hnsw, or give the vectors yourself`,
            },
            { field },
          );
        }
        if (Object.values(vectors).some((v) => v.model !== undefined)) {
          throw createError(
            'VALIDATION_FAILED',
            { detail: `${field}: a collection has at most one vector filled by a model` },
            { field },
          );
        }
        dimensions = model.dimensions;
        vectors[name] = { dimensions, distance: 'cosine', storage: 'f16', hnsw: defaultHnsw, model: model.name };
        continue;
      }
      if (dimensions === undefined) {
        throw createError(
          'VALIDATION_FAILED',
          { detail: `${field}.dimensions is required for a vector you give (or name a model that fills it)` },
          { field: `${field}.dimensions` },
        );
      }
      vectors[name] = {
        dimensions,
        distance: given.distance ?? 'cosine',
        storage: given.storage ?? 'f16',
        hnsw: { ...defaultHnsw, ...given.hnsw },
        ...(given.multi && { multi: given.multi }),
      };
    }
    const names = Object.keys(vectors);
    if (input.indexes) refuseBadDeclarations(input.indexes, 'body.indexes');
    const analysis = input.analysis && checkedAnalysis(input.analysis, 'body.analysis');
    if (input.default_vector !== undefined && !names.includes(input.default_vector)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `body.default_vector "${input.default_vector}" is not one of the collection's vectors` },
        { field: 'body.default_vector' },
      );
    }
    const collection: Collection = {
      name: input.name,
      description: input.description ?? '',
      vectors,
      ...((input.default_vector ?? names[0]) !== undefined && { default_vector: input.default_vector ?? names[0] }),
      implicit: false,
      ...(input.indexes && Object.keys(input.indexes).length > 0 && { indexes: { ...input.indexes } }),
      ...(analysis && { analysis }),
      // Sparse vectors have no settings yet (dot product); fixed at create (decision 0058).
      ...(input.sparse_vectors &&
        Object.keys(input.sparse_vectors).length > 0 && {
          sparse_vectors: Object.fromEntries(Object.keys(input.sparse_vectors).map((n) => [n, {}])),
        }),
      created_at: now,
      updated_at: now,
    };
    this.#rows.write(tenantId, collection);
    return collection;
  }

  /**
   * Changes what needs no rebuild (and the declared field indexes, which build in the background); returns the
   * collection and the vectors whose ef_search changed.
   */
  update(
    tenantId: string,
    name: string,
    patch: UpdateCollectionRequest,
    now: number,
  ): { collection: Collection; reload: string[] } {
    const current = this.require(tenantId, name);
    const vectors = { ...current.vectors };
    const reload: string[] = [];
    for (const [vectorName, change] of Object.entries(patch.vectors ?? {})) {
      const settings = vectors[vectorName];
      if (!settings) {
        throw createError(
          'VALIDATION_FAILED',
          { detail: `body.vectors.${vectorName}: collection ${name} has no vector of that name` },
          { field: `body.vectors.${vectorName}` },
        );
      }
      if (settings.model !== undefined) {
        throw createError(
          'VALIDATION_FAILED',
          { detail: `body.vectors.${vectorName}: a vector filled by a model keeps the model index's settings` },
          { field: `body.vectors.${vectorName}` },
        );
      }
      vectors[vectorName] = { ...settings, hnsw: { ...settings.hnsw, ef_search: change.hnsw.ef_search } };
      reload.push(vectorName);
    }
    if (patch.default_vector !== undefined && !(patch.default_vector in vectors)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `body.default_vector "${patch.default_vector}" is not one of the collection's vectors` },
        { field: 'body.default_vector' },
      );
    }
    if (patch.indexes) refuseBadDeclarations(patch.indexes, 'body.indexes');
    const { indexes: _declared, analysis: _analysed, ...rest } = current;
    const indexes = patch.indexes ?? current.indexes ?? {};
    // Analysis settings are replaced whole (`{}` removes them); they apply at query time, so nothing is rebuilt.
    const analysis = patch.analysis ? checkedAnalysis(patch.analysis, 'body.analysis') : current.analysis;
    const collection: Collection = {
      ...rest,
      vectors,
      ...(Object.keys(indexes).length > 0 && { indexes: { ...indexes } }),
      ...(analysis && { analysis }),
      description: patch.description ?? current.description,
      ...(patch.default_vector !== undefined && { default_vector: patch.default_vector }),
      updated_at: now,
    };
    this.#rows.write(tenantId, collection);
    return { collection, reload };
  }

  /** Removes the collection's row (its documents and indexes are removed by the caller, in the same transaction). */
  remove(tenantId: string, name: string): void {
    this.#rows.remove(tenantId, name);
  }

  /**
   * Live documents of the collection the viewer may read, their chunks, and the live vectors of each of the
   * collection's vectors (model vectors: its chunks embedded by that model).
   */
  counts(viewer: Viewer, collection: Collection, now: number): CollectionCounts {
    // A count reads every document of the collection with the access rule: about 0.2 s at 300,000 documents, held on
    // the thread. It is kept until the store changes (SQLite's total_changes() of the one connection every write
    // goes through moves with any row written, by a trigger too) or a grant the count relied on expires.
    const key = JSON.stringify([viewer.tenantId, collection.name, principalsOf(viewer)]);
    const changes = this.#rows.changes();
    const kept = this.#counts.get(key);
    if (kept && kept.changes === changes && now < kept.until) return kept.counts;
    const counts = this.#count(viewer, collection, now);
    // Counts read inside a write transaction may include rows it then rolls back: not kept.
    if (this.#rows.inTransaction) return counts;
    this.#counts.set(key, {
      changes,
      until: this.#rows.soonestExpiry(viewer, collection.name, now) ?? Infinity,
      counts,
    });
    return counts;
  }

  #count(viewer: Viewer, collection: Collection, now: number): CollectionCounts {
    const { documents, chunks } = this.#rows.readableCounts(viewer, collection.name, now);
    const vectors: Record<string, number> = {};
    for (const [name, settings] of Object.entries(collection.vectors)) {
      vectors[name] =
        settings.model !== undefined
          ? this.#rows.modelVectorCount(viewer.tenantId, collection.name, settings.model)
          : this.#rows.clientVectorCount(viewer.tenantId, collection.name, name);
    }
    return { documents, chunks, vectors };
  }

  /** The settings of a vector space (see vector-space.ts): a model's, or a collection vector's. */
  spaceSettings(tenantId: string, space: string): SpaceSettings {
    const source = parseSpaceKey(space);
    if (source.kind === 'chunks') return modelSpace(source.model);
    const settings = this.get(tenantId, source.collection)?.vectors[source.name];
    // A space whose collection is gone keeps default settings until its index is dropped.
    return settings
      ? { distance: settings.distance, storage: settings.storage, hnsw: settings.hnsw, source }
      : { ...modelSpace(''), source };
  }

  /**
   * The model that embeds a document's chunks in its collection: an explicit collection decides (its model vector,
   * or none: its documents are not embedded); an implicit or new one takes the document's request, as always.
   */
  modelFor(tenantId: string, table: string, requested: string | null, field: string): string | null {
    const collection = this.get(tenantId, table);
    if (!collection || collection.implicit || requested === null) return requested;
    const model = Object.values(collection.vectors).find((v) => v.model !== undefined)?.model ?? null;
    if (requested !== '' && model === null) {
      throw createError(
        'VALIDATION_FAILED',
        {
          detail: `${field}: collection ${table} has no vector filled by a model (its documents carry your own vectors); leave out embedding_options`,
        },
        { field },
      );
    }
    if (requested !== '' && model !== null && this.#models.resolve(requested).name !== model) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${field}: collection ${table} is embedded with ${model}, not ${requested}` },
        { field },
      );
    }
    return model;
  }

  /**
   * Checks a document's vectors against its collection, inside the write transaction, creating the collection
   * (implicit) and the vectors it does not have yet when that is allowed: an implicit collection takes any new
   * name (its first vector fixes the size, cosine and f16); an explicit one only its declared vectors.
   * `givenModelVector` names the vector given for a name that `model` fills (prepared by given-model-vector.ts): it is
   * answered with no space of its own (space null), as it is searched through the document's first chunk.
   */
  prepareWrite(
    tenantId: string,
    table: string,
    model: string | null,
    given: readonly GivenVector[],
    now: number,
    givenModelVector?: string,
  ): { name: string; space: string | null; vector: Float32Array }[] {
    const existing = this.get(tenantId, table);
    const collection: Collection = existing ?? {
      name: table,
      description: '',
      vectors: {},
      implicit: true,
      created_at: now,
      updated_at: now,
    };
    const vectors = { ...collection.vectors };
    let defaultVector = collection.default_vector;
    let changed = !existing;
    if (model !== null && collection.implicit && !vectors[model]) {
      vectors[model] = {
        dimensions: this.#models.resolve(model).dimensions,
        distance: 'cosine',
        storage: 'f16',
        hnsw: defaultHnsw,
        model,
      };
      defaultVector ??= model;
      changed = true;
    }
    const out = given.map((g) => {
      let name = g.name;
      if (name === '') {
        const named = defaultVector !== undefined ? vectors[defaultVector] : undefined;
        name = named && named.model === undefined ? defaultVector! : defaultVectorName;
      }
      let settings = vectors[name];
      if (!settings) {
        if (!collection.implicit) {
          const declared = Object.entries(vectors)
            .filter(([, v]) => v.model === undefined)
            .map(([n]) => n);
          throw createError(
            'VALIDATION_FAILED',
            {
              detail: `${g.field}: collection ${table} has no vector named "${name}"${declared.length > 0 ? ` (it has: ${declared.join(', ')})` : ' (it declares none you can give)'}`,
            },
            { field: g.field },
          );
        }
        settings = { dimensions: g.vector.length, distance: 'cosine', storage: 'f16', hnsw: defaultHnsw };
        vectors[name] = settings;
        if (defaultVector === undefined || g.name === '') defaultVector ??= name;
        changed = true;
      }
      if (settings.model !== undefined) {
        if (name === givenModelVector && settings.model === model && g.vector.length === settings.dimensions)
          return { name, space: null, vector: g.vector };
        // The collection changed between the document's preparation and its write (it was deleted and declared
        // again): the document was prepared for other vectors.
        throw createError(
          'VALIDATION_FAILED',
          {
            detail: `${g.field}: vector "${name}" of collection ${table} is filled by model ${settings.model}, and the collection changed while the document was written; send it again`,
          },
          { field: g.field },
        );
      }
      if (settings.multi)
        throw createError(
          'VALIDATION_FAILED',
          {
            detail: `${g.field}: vector "${name}" of collection ${table} is a multi-vector: give a list of vectors in multi_vectors.${name}`,
          },
          { field: g.field },
        );
      if (g.vector.length !== settings.dimensions) {
        throw createError(
          'INVALID_VECTOR_FORMAT',
          {
            reason: `${g.field} has ${g.vector.length} numbers but vector "${name}" of collection ${table} has ${settings.dimensions} dimensions`,
          },
          { field: g.field },
        );
      }
      if (settings.distance === 'cosine' && g.vector.every((x) => x === 0)) {
        throw createError(
          'INVALID_VECTOR_FORMAT',
          { reason: `${g.field} is a zero vector, which has no direction for cosine` },
          { field: g.field },
        );
      }
      return { name, space: clientSpaceKey(table, name), vector: g.vector };
    });
    if (changed) {
      this.#rows.write(tenantId, {
        ...collection,
        vectors,
        ...(defaultVector !== undefined && { default_vector: defaultVector }),
        updated_at: now,
      });
    }
    return out;
  }

  #resolveModel(name: string, field: string) {
    try {
      return this.#models.resolve(name);
    } catch (error) {
      throw isGoDBError(error) && error.field === undefined
        ? new GoDBError(error.code, error.message, field, error.details ? { ...error.details } : undefined)
        : error;
    }
  }
}
