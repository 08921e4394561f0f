import { GoDBClient, GoDBError, type ClientOptions, type Input, type Output } from '@godb/client';
import type { hybridFusions } from '@godb/contract';
import type { BaseEmbedding } from '@llamaindex/core/embeddings';
import { getTopKMMREmbeddings } from '@llamaindex/core/embeddings';
import { MetadataMode, type BaseNode } from '@llamaindex/core/schema';
import {
  BaseVectorStore,
  VectorStoreQueryMode,
  metadataDictToNode,
  nodeToMetadata,
  type VectorStoreQuery,
  type VectorStoreQueryResult,
} from '@llamaindex/core/vector-store';
import { toGoDBFilter, type FilterClause, type FilterGroup } from './filter.js';

export interface GoDBVectorStoreArgs {
  /** A client, or the options to make one (`{ url, apiKey }`). */
  readonly client: GoDBClient | ClientOptions;
  /** The collection (primary table) that holds the nodes; created on the first write when missing. */
  readonly collection: string;
  /** The collection's vector that holds the embeddings (default `default`). */
  readonly vectorName?: string;
  /** Distance of a collection this store creates (default cosine). */
  readonly distance?: 'cosine' | 'euclidean' | 'dot';
  /** Nodes per request when adding (default 500; each request is all or nothing). */
  readonly batchSize?: number;
  /** Weight of the vector side in hybrid queries, 0 to 1 (default: GoDB's, 0.3). */
  readonly alpha?: number;
  /** The embedding model; LlamaIndex's `Settings.embedModel` when not given. */
  readonly embedModel?: BaseEmbedding;
}

/** What a retriever's `customParams` may tune for this store. */
export interface GoDBQueryParams {
  /** Hybrid: weight of the vector side, 0 to 1 (a query's own `alpha` wins). */
  readonly alpha?: number;
  /** Hybrid: how the text and vector sides combine (default dbsf_relative). */
  readonly fusion?: (typeof hybridFusions)[number];
  /** Default mode: results scoring below are dropped, 0 to 1 (default 0, which keeps every positive similarity). */
  readonly threshold?: number;
  /** MMR: candidates fetched before diversifying (default four times similarityTopK, at least 20). */
  readonly mmrPrefetch?: number;
  /** MMR: 1 is pure relevance, 0 pure diversity (a query's own `mmrThreshold` wins; default 0.5). */
  readonly mmrThreshold?: number;
}

type StoredDocument = Output<'documents', 'scroll'>['documents'][number];
type NewDocument = Input<'documents', 'batchAdd'>['body'][number];
type Hit = Output<'search', 'vector'>['results'][number];

const supportedModes = [
  VectorStoreQueryMode.DEFAULT,
  VectorStoreQueryMode.HYBRID,
  VectorStoreQueryMode.SPARSE,
  VectorStoreQueryMode.MMR,
];

function invalid(message: string, field: string): GoDBError {
  return new GoDBError({ code: 'VALIDATION_FAILED', message, status: 0, field });
}

/**
 * A LlamaIndex vector store on a GoDB collection: each node is a GoDB document (its text → content, its metadata →
 * metadata beside LlamaIndex's own `_node_content`, `_node_type` and `ref_doc_id`, its embedding → the collection's
 * vector). Query modes: default (vector search), hybrid (GoDB's BM25 + vector fusion, weighted by alpha), sparse
 * (GoDB's BM25 text search) and mmr (maximal marginal relevance over GoDB's nearest candidates); the others are
 * refused. Scores are GoDB's: higher is more similar.
 *
 * @example
 *   const vectorStore = new GoDBVectorStore({ client: { url, apiKey }, collection: 'notes' });
 *   const index = await VectorStoreIndex.fromDocuments(documents, {
 *     storageContext: await storageContextFromDefaults({ vectorStore }),
 *   });
 *   const nodes = await index.asRetriever({ similarityTopK: 3 }).retrieve('vector databases');
 */
export class GoDBVectorStore extends BaseVectorStore<GoDBClient, GoDBQueryParams> {
  storesText = true;
  readonly collection: string;
  readonly vectorName: string;
  readonly #client: GoDBClient;
  readonly #distance: 'cosine' | 'euclidean' | 'dot';
  readonly #batchSize: number;
  readonly #alpha: number | undefined;
  #ready: Promise<void> | undefined;

  constructor(args: GoDBVectorStoreArgs) {
    super(args.embedModel === undefined ? undefined : { embedModel: args.embedModel });
    this.#client = args.client instanceof GoDBClient ? args.client : new GoDBClient(args.client);
    this.collection = args.collection;
    this.vectorName = args.vectorName ?? 'default';
    this.#distance = args.distance ?? 'cosine';
    this.#batchSize = args.batchSize ?? 500;
    this.#alpha = args.alpha;
  }

  client(): GoDBClient {
    return this.#client;
  }

  /** Creates the collection with a vector of `dimensions` numbers unless it exists. */
  async ensureCollection(dimensions: number): Promise<void> {
    this.#ready ??= (async () => {
      try {
        await this.#client.collections.get({ name: this.collection });
      } catch (error) {
        if (!(error instanceof GoDBError) || error.code !== 'NOT_FOUND') throw error;
        await this.#client.collections
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

  /** Writes embedded nodes (a node id already stored is replaced); answers their ids. */
  async add(nodes: BaseNode[]): Promise<string[]> {
    if (nodes.length === 0) return [];
    const body: NewDocument[] = nodes.map((node) => {
      if (node.embedding === undefined || node.embedding.length === 0) {
        throw invalid(`Node ${node.id_} has no embedding: embed nodes before adding them`, 'embedding');
      }
      return {
        id: node.id_,
        primary_table: this.collection,
        content: node.getContent(MetadataMode.NONE),
        // LlamaIndex's own layout (the node without its text as JSON, its type, its source document's id), so nodes
        // come back whole and LlamaIndex Python reads them too; the text lives once, in content.
        metadata: nodeToMetadata(node, true, 'text', false),
        vectors: { [this.vectorName]: node.embedding },
      };
    });
    await this.ensureCollection(nodes[0]?.embedding?.length ?? 0);
    for (let start = 0; start < body.length; start += this.#batchSize) {
      await this.#client.documents.batchAdd({ body: body.slice(start, start + this.#batchSize) });
    }
    return nodes.map((n) => n.id_);
  }

  /**
   * Deletes, for good, the nodes of the source document `refDocId`, and the document of that id itself (a collection
   * written through GoDB's own API has no source documents).
   */
  async delete(refDocId: string): Promise<void> {
    await this.#client.documents.deleteMany({
      primary_table: this.collection,
      filter: {
        should: [
          { field: 'metadata.ref_doc_id', operator: 'eq', value: refDocId },
          { field: 'id', operator: 'eq', value: refDocId },
        ],
      },
      permanent: true,
    });
  }

  async query(query: VectorStoreQuery<GoDBQueryParams>): Promise<VectorStoreQueryResult> {
    const limit = query.similarityTopK;
    const filters = this.#filters(query);
    const params = query.customParams ?? {};
    let hits: Hit[];
    let vectors = false;
    switch (query.mode) {
      case VectorStoreQueryMode.DEFAULT:
        hits = await this.#vectorSearch(this.#embedding(query), limit, filters, params.threshold ?? 0);
        break;
      case VectorStoreQueryMode.HYBRID: {
        const alpha = query.alpha ?? params.alpha ?? this.#alpha;
        const answer = await this.#client.search.hybrid({
          primary_table: this.collection,
          vector_name: this.vectorName,
          vector: this.#embedding(query),
          limit,
          ...(query.queryStr !== undefined && query.queryStr !== '' && { query: query.queryStr }),
          ...(alpha !== undefined && { alpha }),
          ...(params.fusion !== undefined && { fusion: params.fusion }),
          ...(filters !== undefined && { filters }),
        });
        hits = answer.results;
        break;
      }
      case VectorStoreQueryMode.SPARSE: {
        if (query.queryStr === undefined || query.queryStr.trim() === '') {
          throw invalid('A sparse (BM25 text) query needs queryStr: give the words to search for', 'queryStr');
        }
        const answer = await this.#client.search.text({
          primary_table: this.collection,
          query: query.queryStr,
          query_type: 'match',
          limit,
          ...(filters !== undefined && { filters }),
        });
        hits = answer.results;
        break;
      }
      case VectorStoreQueryMode.MMR: {
        vectors = true;
        hits = await this.#vectorSearch(
          this.#embedding(query),
          params.mmrPrefetch ?? Math.max(20, 4 * limit),
          filters,
          0,
        );
        break;
      }
      default:
        throw invalid(
          `GoDB does not support the ${String(query.mode)} query mode: use one of ${supportedModes.join(', ')}`,
          'mode',
        );
    }
    const stored = await this.#read(
      hits.map((h) => h.document_id),
      vectors,
    );
    let found = hits.flatMap((hit) => {
      const document = stored.get(hit.document_id);
      return document ? [{ document, score: hit.score }] : [];
    });
    if (query.mode === VectorStoreQueryMode.MMR) found = this.#diversify(query, found, limit);
    return {
      ids: found.map((f) => f.document.id),
      similarities: found.map((f) => f.score),
      nodes: found.map((f) => toNode(f.document)),
    };
  }

  /** Maximal marginal relevance with LlamaIndex's own algorithm, over GoDB's nearest candidates. */
  #diversify(
    query: VectorStoreQuery<GoDBQueryParams>,
    found: { document: StoredDocument; score: number }[],
    limit: number,
  ): { document: StoredDocument; score: number }[] {
    const candidates = found.filter((f) => Array.isArray(f.document.vectors?.[this.vectorName]));
    if (candidates.length === 0) return [];
    const [scores, ids] = getTopKMMREmbeddings(
      this.#embedding(query),
      candidates.map((c) => c.document.vectors?.[this.vectorName] as number[]),
      null,
      limit,
      candidates.map((c) => c.document.id),
      null,
      query.mmrThreshold ?? query.customParams?.mmrThreshold ?? null,
    );
    const byId = new Map(candidates.map((c) => [c.document.id, c.document]));
    return ids.flatMap((id: string, i) => {
      const document = byId.get(id);
      return document ? [{ document, score: scores[i] ?? 0 }] : [];
    });
  }

  #embedding(query: VectorStoreQuery<GoDBQueryParams>): number[] {
    if (query.queryEmbedding === undefined || query.queryEmbedding.length === 0) {
      throw invalid(`A ${query.mode} query needs queryEmbedding: embed the query first`, 'queryEmbedding');
    }
    return query.queryEmbedding;
  }

  /** The query's metadata filters, restricted to `docIds` (node ids) when given. */
  #filters(query: VectorStoreQuery<GoDBQueryParams>): FilterGroup | undefined {
    const group: FilterGroup | undefined = query.filters === undefined ? undefined : toGoDBFilter(query.filters);
    if (query.docIds === undefined) return group;
    // In the top group's must, so the ids cost no level of GoDB's three.
    const ids: FilterClause = { field: 'id', operator: 'in', value: query.docIds };
    return { ...group, must: [...(group?.must ?? []), ids] };
  }

  async #vectorSearch(vector: number[], limit: number, filters: FilterGroup | undefined, threshold: number) {
    const answer = await this.#client.search.vector({
      primary_table: this.collection,
      vector_name: this.vectorName,
      vector,
      limit,
      threshold,
      ...(filters !== undefined && { filters }),
    });
    return answer.results;
  }

  /** The stored documents (content and metadata exactly as written, vectors if asked) by id. */
  async #read(ids: string[], withVectors: boolean): Promise<Map<string, StoredDocument>> {
    if (ids.length === 0) return new Map();
    const { documents } = await this.#client.documents.scroll({
      primary_table: this.collection,
      filter: [{ field: 'id', operator: 'in', value: ids }],
      limit: ids.length,
      with_vectors: withVectors,
    });
    return new Map(documents.map((d) => [d.id, d]));
  }
}

/** A node as LlamaIndex wrote it, or a text node of a document written some other way. */
function toNode(stored: StoredDocument): BaseNode {
  const metadata = stored.metadata ?? {};
  const text = stored.content ?? '';
  const node =
    typeof metadata._node_content === 'string'
      ? metadataDictToNode(metadata)
      : metadataDictToNode({}, { fallback: { id_: stored.id, text, metadata } });
  node.id_ = stored.id;
  node.setContent(text);
  return node;
}
