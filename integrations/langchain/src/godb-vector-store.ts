import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import { Document, type DocumentInterface } from '@langchain/core/documents';
import { maximalMarginalRelevance } from '@langchain/core/utils/math';
import { VectorStore, type MaxMarginalRelevanceSearchOptions } from '@langchain/core/vectorstores';
import { GoDBClient, GoDBError, type ClientOptions, type Input, type Output } from '@godb/client';
import { toGoDBFilter, type FilterClause, type FilterGroup, type GoDBVectorStoreFilter } from './filter.js';

export interface GoDBVectorStoreArgs {
  /** A client, or the options to make one (`{ url, apiKey }`). */
  readonly client: GoDBClient | ClientOptions;
  /** The collection (primary table) that holds the documents; created on the first write when missing. */
  readonly collection: string;
  /** The collection's vector that holds the embeddings (default `default`). */
  readonly vectorName?: string;
  /** Distance of a collection this store creates (default cosine). */
  readonly distance?: 'cosine' | 'euclidean' | 'dot';
  /** Documents per request when adding (default 500; each request is all or nothing). */
  readonly batchSize?: number;
}

type StoredDocument = Output<'documents', 'scroll'>['documents'][number];
type NewDocument = Input<'documents', 'batchAdd'>['body'][number];

/**
 * A LangChain vector store on a GoDB collection whose vector you fill with your embeddings: each LangChain document
 * is a GoDB document (`pageContent` → content, `metadata` → metadata, its embedding → the collection's vector).
 * Scores are GoDB's: higher is more similar (cosine similarity, 1 / (1 + distance) for euclidean, or the dot product).
 *
 * @example
 *   const store = await GoDBVectorStore.fromTexts(['GoDB stores vectors'], [{ topic: 'db' }], embeddings, {
 *     client: { url: 'http://localhost:8081', apiKey: process.env.GODB_API_KEY },
 *     collection: 'notes',
 *   });
 *   const hits = await store.similaritySearch('vector database', 2, { topic: 'db' });
 */
export class GoDBVectorStore extends VectorStore {
  declare FilterType: GoDBVectorStoreFilter;
  readonly client: GoDBClient;
  readonly collection: string;
  readonly vectorName: string;
  readonly #distance: 'cosine' | 'euclidean' | 'dot';
  readonly #batchSize: number;
  #ready: Promise<void> | undefined;

  constructor(embeddings: EmbeddingsInterface, args: GoDBVectorStoreArgs) {
    // Only what identifies the store goes to LangChain's serialisable fields: never the client or its API key.
    super(embeddings, { collection: args.collection, vectorName: args.vectorName ?? 'default' });
    this.client = args.client instanceof GoDBClient ? args.client : new GoDBClient(args.client);
    this.collection = args.collection;
    this.vectorName = args.vectorName ?? 'default';
    this.#distance = args.distance ?? 'cosine';
    this.#batchSize = args.batchSize ?? 500;
  }

  override _vectorstoreType(): string {
    return 'godb';
  }

  /** Creates the collection with a vector of `dimensions` numbers unless it exists. */
  async ensureCollection(dimensions: number): Promise<void> {
    this.#ready ??= (async () => {
      try {
        await this.client.collections.get({ name: this.collection });
      } catch (error) {
        if (!(error instanceof GoDBError) || error.code !== 'NOT_FOUND') throw error;
        await this.client.collections
          .create({ name: this.collection, vectors: { [this.vectorName]: { dimensions, distance: this.#distance } } })
          .catch((created: unknown) => {
            // Another writer created it meanwhile: fine.
            if (!(created instanceof GoDBError) || created.code !== 'COLLECTION_EXISTS') throw created;
          });
      }
    })().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  override async addDocuments(documents: DocumentInterface[], options?: { ids?: string[] }): Promise<string[]> {
    const vectors = await this.embeddings.embedDocuments(documents.map((d) => d.pageContent));
    return this.addVectors(vectors, documents, options);
  }

  override async addVectors(
    vectors: number[][],
    documents: DocumentInterface[],
    options?: { ids?: string[] },
  ): Promise<string[]> {
    if (vectors.length !== documents.length) {
      throw new GoDBError({
        code: 'VALIDATION_FAILED',
        message: `${vectors.length} vectors for ${documents.length} documents: give one vector per document`,
        status: 0,
        field: 'vectors',
      });
    }
    if (documents.length === 0) return [];
    await this.ensureCollection(vectors[0]?.length ?? 0);
    const ids = documents.map((d, i) => options?.ids?.[i] ?? d.id ?? crypto.randomUUID());
    const body: NewDocument[] = documents.map((d, i) => ({
      id: ids[i],
      primary_table: this.collection,
      content: d.pageContent,
      metadata: d.metadata,
      vectors: { [this.vectorName]: vectors[i] ?? [] },
    }));
    for (let start = 0; start < body.length; start += this.#batchSize) {
      await this.client.documents.batchAdd({ body: body.slice(start, start + this.#batchSize) });
    }
    return ids;
  }

  override async similaritySearchVectorWithScore(
    query: number[],
    k: number,
    filter?: this['FilterType'],
  ): Promise<[DocumentInterface, number][]> {
    const hits = await this.#search(query, k, filter);
    const stored = await this.#read(
      hits.map((h) => h.document_id),
      false,
    );
    return hits.flatMap((hit) => {
      const document = stored.get(hit.document_id);
      return document ? [[toDocument(document), hit.score] as [DocumentInterface, number]] : [];
    });
  }

  /**
   * Maximal marginal relevance: fetches `fetchK` nearest documents with their vectors, then picks `k` of them that
   * are near the query and far from each other (`lambda` 1 is pure relevance, 0 pure diversity).
   */
  override async maxMarginalRelevanceSearch(
    query: string,
    options: MaxMarginalRelevanceSearchOptions<this['FilterType']>,
  ): Promise<DocumentInterface[]> {
    const { k = 4, fetchK = 20, lambda = 0.5, filter } = options;
    const vector = await this.embeddings.embedQuery(query);
    const hits = await this.#search(vector, fetchK, filter);
    const stored = await this.#read(
      hits.map((h) => h.document_id),
      true,
    );
    const candidates = hits.flatMap((hit) => {
      const document = stored.get(hit.document_id);
      const embedding = document?.vectors?.[this.vectorName];
      return document && Array.isArray(embedding) ? [{ document, embedding: embedding as number[] }] : [];
    });
    if (candidates.length === 0) return [];
    const picked = maximalMarginalRelevance(
      vector,
      candidates.map((c) => c.embedding),
      lambda,
      k,
    );
    return picked.flatMap((i) => {
      const candidate = candidates[i];
      return candidate ? [toDocument(candidate.document)] : [];
    });
  }

  /**
   * Deletes documents of the collection for good: those with the given ids, those matching the filter, or (both
   * given) those listed that match it.
   */
  override async delete(params: { ids?: string[]; filter?: GoDBVectorStoreFilter }): Promise<void> {
    const must: (FilterClause | FilterGroup)[] = [];
    if (params.ids !== undefined) {
      if (params.ids.length === 0 && params.filter === undefined) return;
      must.push({ field: 'id', operator: 'in', value: params.ids });
    }
    if (params.filter !== undefined) {
      const filter = toGoDBFilter(params.filter);
      must.push(...(Array.isArray(filter) ? filter : [filter]));
    }
    if (must.length === 0) {
      throw new GoDBError({
        code: 'VALIDATION_FAILED',
        message: 'delete needs ids or a filter: give { ids } or { filter }',
        status: 0,
        field: 'ids',
      });
    }
    await this.client.documents.deleteMany({
      primary_table: this.collection,
      filter: { must },
      permanent: true,
    });
  }

  async #search(vector: number[], limit: number, filter: this['FilterType'] | undefined) {
    const answer = await this.client.search.vector({
      primary_table: this.collection,
      vector_name: this.vectorName,
      vector,
      limit,
      threshold: 0,
      ...(filter !== undefined && { filters: toGoDBFilter(filter) }),
    });
    return answer.results;
  }

  /** The stored documents (content and metadata exactly as written, vectors if asked) by id. */
  async #read(ids: string[], withVectors: boolean): Promise<Map<string, StoredDocument>> {
    if (ids.length === 0) return new Map();
    const { documents } = await this.client.documents.scroll({
      primary_table: this.collection,
      filter: [{ field: 'id', operator: 'in', value: ids }],
      limit: ids.length,
      with_vectors: withVectors,
    });
    return new Map(documents.map((d) => [d.id, d]));
  }

  static override async fromTexts(
    texts: string[],
    metadatas: object[] | object,
    embeddings: EmbeddingsInterface,
    args: GoDBVectorStoreArgs,
  ): Promise<GoDBVectorStore> {
    const documents = texts.map(
      (pageContent, i) =>
        new Document({
          pageContent,
          metadata: (Array.isArray(metadatas) ? metadatas[i] : metadatas) as Record<string, unknown>,
        }),
    );
    return GoDBVectorStore.fromDocuments(documents, embeddings, args);
  }

  static override async fromDocuments(
    documents: DocumentInterface[],
    embeddings: EmbeddingsInterface,
    args: GoDBVectorStoreArgs,
  ): Promise<GoDBVectorStore> {
    const store = new GoDBVectorStore(embeddings, args);
    await store.addDocuments(documents);
    return store;
  }
}

function toDocument(stored: StoredDocument): DocumentInterface {
  return new Document({ id: stored.id, pageContent: stored.content ?? '', metadata: stored.metadata ?? {} });
}
