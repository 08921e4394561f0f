import { createError, GoDBError, isGoDBError, type Collection, type DocumentInput } from '@godb/contract';
import type { Collections } from '../collections/collections.js';
import { defaultHnsw } from '../collections/vector-space.js';
import { defaultEmbedOptions, type Embedder, type EmbedOptions } from '../embeddings/embedder.js';
import { withGivenModelVector } from './given-model-vector.js';
import { embeddingTextOf, prepareDocument } from './prepare.js';
import type { PreparedDocument, Viewer } from './types.js';

export interface DocumentPreparationDeps {
  readonly embedder: Embedder;
  readonly collections: Collections;
}

function withField(error: unknown, field: string): unknown {
  return isGoDBError(error) && error.field === undefined
    ? new GoDBError(error.code, error.message, field, error.details ? { ...error.details } : undefined)
    : error;
}

function embedOptionsOf(doc: PreparedDocument): EmbedOptions {
  const p = doc.fields.embedding_options?.preprocessing ?? {};
  return {
    normalize: true,
    maxTokens: p.max_tokens ?? defaultEmbedOptions.maxTokens,
    overlap: p.overlap ?? defaultEmbedOptions.overlap,
    strategy: p.strategy ?? defaultEmbedOptions.strategy,
  };
}

/**
 * The collection as the write will find it: an implicit collection (or one the write creates) gains a vector named
 * after the model that embeds the document (see Collections.prepareWrite), so a vector given under that name is
 * the model's.
 */
function withImplicitModelVector(
  collection: Collection | undefined,
  table: string,
  model: { name: string; dimensions: number },
): Collection | undefined {
  if (collection && (!collection.implicit || collection.vectors[model.name])) return collection;
  const settings = { dimensions: model.dimensions, distance: 'cosine', storage: 'f16', model: model.name } as const;
  return {
    ...(collection ?? { name: table, description: '', implicit: true, created_at: 0, updated_at: 0 }),
    vectors: { ...collection?.vectors, [model.name]: { ...settings, hnsw: defaultHnsw } },
  };
}

/**
 * What a write does before its operation is made: validation, chunking, model resolution and embedding. The
 * embeddings travel inside the operation, so every node writes the same vectors.
 */
export class DocumentPreparation {
  readonly #deps: DocumentPreparationDeps;

  constructor(deps: DocumentPreparationDeps) {
    this.#deps = deps;
  }

  /** Validation, chunking and model resolution; no I/O. `path(i)` names the i-th document in errors. */
  prepare(viewer: Viewer, inputs: readonly DocumentInput[], path: (i: number) => string): PreparedDocument[] {
    const seen = new Map<string, number>();
    return inputs.map((input, i) => {
      const doc = prepareDocument(input, viewer.userId, path(i));
      const first = seen.get(doc.id);
      if (first !== undefined) {
        throw createError(
          'VALIDATION_FAILED',
          { detail: `${path(i)}.id "${doc.id}" repeats ${path(first)}.id` },
          { field: `${path(i)}.id` },
        );
      }
      seen.set(doc.id, i);
      return this.resolve(viewer, doc, path(i));
    });
  }

  /**
   * The part of `prepare` that reads the tenant's collections: a document already validated and chunked by
   * prepareDocument (on an import worker thread, say) gets its model and the collection's vectors. `path` names it.
   */
  resolve(viewer: Viewer, doc: PreparedDocument, path: string): PreparedDocument {
    const modelField = `${path}.embedding_options.model_name`;
    const model = this.#deps.collections.modelFor(viewer.tenantId, doc.primaryTable, doc.model, modelField);
    const collection = this.#deps.collections.get(viewer.tenantId, doc.primaryTable);
    if (model === null) return withGivenModelVector({ ...doc, model: null }, collection);
    let resolved: { name: string; dimensions: number };
    try {
      resolved = this.#deps.embedder.resolve(model || undefined);
    } catch (error) {
      throw withField(error, `${path}.embedding_options.model_name`);
    }
    return withGivenModelVector(
      { ...doc, model: resolved.name },
      withImplicitModelVector(collection, doc.primaryTable, resolved),
      doc.model ? resolved.name : undefined,
    );
  }

  /**
   * Embeds every chunk of the prepared documents, grouped by model and preprocessing options. An aborted `signal`
   * (the caller went away) stops before the next group and drops its queued embedding jobs.
   */
  async embed(prepared: readonly PreparedDocument[], signal?: AbortSignal): Promise<void> {
    const groups = new Map<
      string,
      { model: string; options: EmbedOptions; chunks: { doc: PreparedDocument; index: number }[] }
    >();
    for (const doc of prepared) {
      // A document that gives the vector its model would fill is not embedded (see given-model-vector.ts).
      if (doc.model === null || doc.givenModelVector !== undefined) continue;
      const options = embedOptionsOf(doc);
      const key = JSON.stringify([doc.model, options]);
      const group = groups.get(key) ?? { model: doc.model, options, chunks: [] };
      doc.chunks.forEach((_c, index) => group.chunks.push({ doc, index }));
      groups.set(key, group);
    }
    for (const group of groups.values()) {
      const texts = group.chunks.map(({ doc, index }) => embeddingTextOf(doc, doc.chunks[index]!));
      const embeddings = await this.#deps.embedder.embed(group.model, texts, group.options, signal);
      group.chunks.forEach(({ doc, index }, i) => {
        doc.chunks[index]!.vector = embeddings[i]!.vector;
      });
    }
  }
}
