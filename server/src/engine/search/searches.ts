import type { Rerankers } from '../rerank/rerankers.js';
import { createError, hybridDefaults, type AnalysisLanguage } from '@godb/contract';
import type { Collections } from '../collections/collections.js';
import { systemMonotonic, type Monotonic } from '../clock.js';
import type { Embedder } from '../embeddings/embedder.js';
import { GraphSearches } from './graph-searches.js';
import { autocomplete, type Suggestion } from './autocomplete.js';
import { candidateShare, countShare, tallyShare, type CompletionAsked, type TallyShare } from './autocomplete-share.js';
import { facetedSearch, type FacetShare } from './faceted-search.js';
import { fuzzyCandidates, fuzzyHits, fuzzySearch, fuzzyTokens, type FuzzyExpansions } from './fuzzy-search.js';
import { readableTerms } from './readable-terms.js';
import { wildcardPatterns } from './fts-query.js';
import { geoSearch } from './geo-search.js';
import type { PipelineRequest } from './pipeline/pipeline-input.js';
import { runPipeline, type PipelineAnswer } from './pipeline/run-pipeline.js';
import type { Hit } from './hit.js';
import { analysedWords, hybridAnswer } from './hybrid-answer.js';
import { hybridSearch, hybridSides, hybridVectorQuery, type Fusion, type HybridQuery } from './hybrid-search.js';
import { hybridSidesAnswer, type HybridSidesAnswer } from './hybrid-sides-answer.js';
import { distinctTables, multiTableSearch, parseJoins } from './multi-table-search.js';
import type { GeoFilter, Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { chooseRoute, type SmartRoute } from './smart-route.js';
import { textSearch } from './text-search.js';
import { textAnswer, type TextRequest } from './text-answer.js';
import { matchStats, textStats, type StatsCounting, type TextStatsAnswer } from './text-stats.js';
import type { GivenStats } from '../text/bm25-score.js';
import { analyseMatch, defaultQueryAnalysis, queryAnalysis, type QueryAnalysis } from '../text/query-analysis.js';
import { stem } from '../text/tokenize.js';
import { queryVector, type SimilarityMethod } from './vector-query.js';
import { vectorSearch } from './vector-search.js';
import { clientVectorAnswer, finishAnswer, modelVectorAnswer, type SearchAnswer } from './vector-answer.js';
import type { SearchPool } from './search-pool/search-pool.js';
import { vectorTarget } from './vector-target.js';

export type { SearchAnswer } from './vector-answer.js';

/** What a shard's part of a partitioned faceted search adds to its answer (see FacetShare). */
export interface FacetShareAnswer {
  /** Matching documents of the shards asked, counted in the facets. */
  readonly hits: number;
  /** A facet had more values than sharedValuesAtMost. */
  readonly truncated: boolean;
  /** The results' update times (seconds), by document id. */
  readonly updated: Readonly<Record<string, number>>;
}

/** Where a vector query points: its text or vector, and a collection's named vector (the scope's table). */
interface VectorInput {
  readonly query?: string | undefined;
  readonly vector?: unknown;
  /** One of the scope's collection's vectors; without it, the collection's default own vector when `vector` is given. */
  readonly vectorName?: string | undefined;
  readonly limit: number;
  readonly signal?: AbortSignal | undefined;
}

export interface VectorSearchRequest extends VectorInput {
  /** The model to embed with when no collection vector is meant (undefined: the default model). */
  readonly model?: string | undefined;
  readonly method: SimilarityMethod;
  readonly threshold: number;
  readonly combineLocation: boolean;
  /** Answer the plan (see SearchPlan). */
  readonly explain?: boolean;
}

export interface HybridSearchRequest extends VectorInput, TextAnalysisRequest {
  /** Answer the plan of both sides (see AnswerPlan). */
  readonly explain?: boolean | undefined;
  readonly alpha: number;
  readonly fusion: Fusion;
  readonly useMlRanking: boolean;
}

/** How a text query is analysed and whether hits show their passages (issue #42). */
export interface TextAnalysisRequest {
  /** The query's language; default the scope's collection's `analysis.language`, else English. */
  readonly lang?: AnalysisLanguage | undefined;
  /** Answer each result's `highlights`. */
  readonly highlight?: boolean | undefined;
}

export interface SmartSearchRequest {
  readonly query: string;
  readonly mode: 'auto' | 'text' | 'semantic' | 'geo';
  readonly autoRoute: boolean;
  /** Whether the request gave a point (lat and lon); its restriction is the scope's geo. */
  readonly hasPoint: boolean;
  readonly limit: number;
  readonly signal?: AbortSignal | undefined;
}

export interface SearchesOptions {
  readonly core: SearchCore;
  readonly embedder: Embedder;
  readonly collections: Collections;
  /** Times `time_taken`; default performance.now(). */
  readonly monotonic?: Monotonic;
  /** Search workers (SEARCH_THREADS), which take the searches they can answer exactly as this thread would. */
  readonly pool?: SearchPool | undefined;
  /** The query pipeline's rerankers (body.rerank). */
  readonly rerankers?: Rerankers | undefined;
}

const queryRequired = () => createError('QUERY_REQUIRED', {}, { field: 'body.query' });

/**
 * The engine's search entry points: each runs one search kind for a caller's scope and answers the finished
 * result (results with their chunks, counts, time, notes), so a use case scopes the caller and maps the answer;
 * it never calls back into the engine. Ranking is in the kinds' own files; this file only finishes their hits.
 *
 * @example const answer = await engine.searches.text(scope, { query: 'shock wave', type: 'match', limit: 10 });
 */
export class Searches {
  readonly #core: SearchCore;
  readonly #embedder: Embedder;
  readonly #collections: Collections;
  readonly #monotonic: Monotonic;
  readonly #pool: SearchPool | undefined;
  readonly #rerankers: Rerankers | undefined;
  /** Graph queries and recommendations (graph-searches.ts). */
  readonly graphs: GraphSearches;

  constructor(options: SearchesOptions) {
    this.#pool = options.pool;
    this.#rerankers = options.rerankers;
    this.#core = options.core;
    this.#embedder = options.embedder;
    this.#collections = options.collections;
    this.#monotonic = options.monotonic ?? systemMonotonic;
    this.graphs = new GraphSearches(this.#core, this.#collections, this.#monotonic);
  }

  /**
   * Full-text search ranked by BM25 (match, phrase or wildcard); wildcard expansions are noted. A match or phrase
   * search a search worker can answer exactly is answered there (SearchPool.text), else here: with RM3 feedback or
   * statistics given by a partitioned collection's coordinator (`stats`) always here.
   */
  async text(scope: Scope, q: TextRequest & TextAnalysisRequest, stats?: GivenStats): Promise<SearchAnswer> {
    const started = this.#monotonic();
    const analysis = this.#analysis(scope, q.lang);
    if (!q.feedback && !stats) {
      const pooled = await this.#pool?.text(this.#core, scope, q, analysis);
      if (pooled) return { ...pooled, time_taken: this.#elapsed(started) };
    }
    return textAnswer(this.#core, scope, q, analysis, () => this.#elapsed(started), stats);
  }

  /**
   * Waits until the tenant's in-memory text index has loaded (at once when it has): RM3 feedback weighs its terms,
   * which only that index can (FTS5 ranks while it loads), so a query with feedback waits for it.
   */
  async textLoaded(scope: Scope): Promise<void> {
    await this.#core.text.loaded(scope.viewer.tenantId);
  }

  /**
   * A text search ranked with given statistics (a partitioned collection's, summed over its shards: see textStats),
   * once the tenant's in-memory index has loaded (FTS5 ranks with its own tables' statistics).
   */
  async textWithStats(scope: Scope, q: Parameters<Searches['text']>[1], stats: GivenStats): Promise<SearchAnswer> {
    await this.textLoaded(scope);
    return this.text(scope, q, stats);
  }

  /** The dfs phase of a partitioned collection's text or hybrid search: the query's statistics here (text-stats.ts). */
  textStats(
    scope: Scope,
    q: {
      query: string;
      type: 'match' | 'phrase';
      lang?: AnalysisLanguage | undefined;
      /** `default`: English with no stop words or synonyms, as faceted search analyses its query. */
      analysis?: 'default';
    },
    counting: StatsCounting,
  ): Promise<TextStatsAnswer> {
    const analysis = q.analysis === 'default' ? defaultQueryAnalysis : this.#analysis(scope, q.lang);
    return textStats(this.#core, scope, q.query, q.type, analysis, counting);
  }

  /**
   * A wildcard search of a partitioned collection (decision 0093), its first round: each pattern's words in this
   * node's vocabulary (readable or not: the asking node orders them over every shard, then asks which are readable).
   */
  wildcardVocabulary(scope: Scope, query: string): Record<string, string[]> {
    const tenantId = scope.viewer.tenantId;
    return Object.fromEntries(
      wildcardPatterns(query).map((pattern) => [pattern, this.#core.text.vocabulary(tenantId, { pattern })]),
    );
  }

  /** Its third round: which of `words` a document here that the caller may read holds. */
  readableWords(scope: Scope, words: readonly string[]): string[] {
    return readableTerms(this.#core, scope, words, words.length, words.length);
  }

  /** Its ranking's statistics: those of the chosen groups here, analysed as the query is (textStats). */
  groupStats(
    scope: Scope,
    groups: readonly (readonly string[])[],
    lang: AnalysisLanguage | undefined,
    counting: StatsCounting,
  ): Promise<TextStatsAnswer> {
    return matchStats(this.#core, scope, { groups }, this.#analysis(scope, lang), counting);
  }

  /**
   * Nearest documents by embedding, or by a collection's own vector (`vectorName`, or the collection's default
   * one when a `vector` is given); the notes say which vector, and what the threshold left out.
   */
  async vector(scope: Scope, q: VectorSearchRequest): Promise<SearchAnswer> {
    const started = this.#monotonic();
    const target = this.#target(scope, q);
    if (target && 'collection' in target) {
      // From a worker, `time_taken` is still the engine's whole time: the hop and any wait for a worker included.
      const pooled = await this.#pool?.clientVector(this.#core, scope, target, q);
      if (pooled) return { ...pooled, time_taken: this.#elapsed(started) };
      return clientVectorAnswer(this.#core, scope, target, q, () => this.#elapsed(started));
    }
    const request = {
      text: q.query,
      vector: q.vector,
      model: target?.model ?? q.model,
      method: q.method,
      threshold: q.threshold,
      limit: q.limit,
      combineLocation: q.combineLocation,
      explain: q.explain,
      signal: q.signal,
    };
    const given = await queryVector(this.#embedder, request);
    const pooled = await this.#pool?.modelVector(this.#core, scope, request, given);
    if (pooled) return { ...pooled, time_taken: this.#elapsed(started) };
    return modelVectorAnswer(this.#core, scope, request, given, () => this.#elapsed(started));
  }

  /** Text and vector search fused (weighted or RRF), optionally re-ranked from engagement; `ranking` says how. */
  async hybrid(scope: Scope, q: HybridSearchRequest): Promise<SearchAnswer> {
    const started = this.#monotonic();
    const asked = this.#hybridQuery(scope, q);
    // By embedding: the query embedded here once, for a worker or for this thread.
    const query =
      this.#pool && !asked.space && (asked.text !== undefined || asked.vector !== undefined)
        ? { ...asked, given: await queryVector(this.#embedder, hybridVectorQuery(asked)) }
        : asked;
    const pooled = await this.#pool?.hybrid(this.#core, scope, query, q);
    if (pooled) return { ...pooled, time_taken: this.#elapsed(started) };
    return hybridAnswer(this.#core, this.#embedder, scope, query, q, () => this.#elapsed(started));
  }

  /**
   * The sides round of a partitioned collection's hybrid search (service/search/partitioned-hybrid.ts): each side's
   * best documents here by id, the text side ranked with the collection's summed statistics when given.
   */
  async hybridSides(scope: Scope, q: HybridSearchRequest, stats: GivenStats | undefined): Promise<HybridSidesAnswer> {
    const started = this.#monotonic();
    const query = this.#hybridQuery(scope, q);
    const analysed = analysedWords(query);
    if (stats) await this.textLoaded(scope);
    const found = await hybridSides(this.#core, this.#embedder, scope, query, stats);
    // Each side shows only the documents this part counts (decision 0089).
    const counted = scope.counted;
    const sides = counted
      ? {
          ...found,
          textHits: found.textHits.filter((h) => counted(h.doc)),
          vectorHits: found.vectorHits.filter((h) => counted(h.doc)),
        }
      : found;
    const index = await this.#core.text.loaded(scope.viewer.tenantId);
    return hybridSidesAnswer(this.#core, sides, {
      split: index?.split ?? false,
      notes: analysed?.notes ?? [],
      terms: q.highlight ? analysed?.terms : undefined,
      elapsed: () => this.#elapsed(started),
    });
  }

  /** A hybrid request as the engine takes it. */
  #hybridQuery(scope: Scope, q: HybridSearchRequest): HybridQuery {
    const target = this.#target(scope, q);
    const analysis = this.#analysis(scope, q.lang);
    return {
      text: q.query,
      vector: q.vector,
      ...(target && ('collection' in target ? { space: target } : { model: target.model })),
      alpha: q.alpha,
      limit: q.limit,
      fusion: q.fusion,
      useMlRanking: q.useMlRanking,
      signal: q.signal,
      analysis,
    };
  }

  /** Documents within the scope's radius, nearest first. */
  geo(scope: Scope & { geo: GeoFilter }, q: { limit: number }): SearchAnswer {
    const started = this.#monotonic();
    return this.#answer(started, geoSearch(this.#core, scope), q.limit, { only: scope.counted });
  }

  /** Documents matching the query with, per facet, the count of matching documents by value. */
  async faceted(
    scope: Scope,
    q: {
      query?: string | undefined;
      facets: readonly string[];
      limit: number;
      signal?: AbortSignal | undefined;
      explain?: boolean | undefined;
    },
    share?: FacetShare,
  ): Promise<SearchAnswer & { facets: Record<string, { value: string; count: number }[]>; share?: FacetShareAnswer }> {
    const started = this.#monotonic();
    if (share?.stats) await this.textLoaded(scope);
    const found = await facetedSearch(this.#core, scope, q.query, q.facets, q.signal, share);
    const { facets, plan } = found;
    // A node's part shows only the documents it counts (decision 0089), as its facets count only those.
    const hits = share ? found.hits.filter((h) => share.keep(h.doc)) : found.hits;
    const answer = { ...this.#answer(started, hits, q.limit, { ...(q.explain && { plan }) }), facets };
    if (!found.counted) return answer;
    // The order of a listing without a query (newest first) by document, for the asking node's merge.
    const updated = Object.fromEntries(hits.slice(0, q.limit).map((h) => [h.doc.id, h.doc.updated_at]));
    return { ...answer, share: { ...found.counted, updated } };
  }

  /** Typo-tolerant search; the expansions of each word are noted. */
  fuzzy(scope: Scope, q: { query: string; fuzziness: number; prefixLength: number; limit: number }): SearchAnswer {
    const started = this.#monotonic();
    const { hits, notes } = fuzzySearch(this.#core, scope, q.query, q.fuzziness, q.prefixLength, q.limit);
    return this.#answer(started, hits, q.limit, { notes, only: scope.counted });
  }

  /**
   * The first round of a partitioned collection's fuzzy search (decision 0083): each token's candidates in this
   * node's vocabulary, and which of them occur in a document here the caller may read (in the scope's table).
   */
  fuzzyExpansions(scope: Scope, q: { query: string; fuzziness: number; prefixLength: number }): FuzzyExpansions {
    const { tokens, notes } = fuzzyTokens(q.query);
    const tenantId = scope.viewer.tenantId;
    if (!this.#core.text.tables(tenantId)) return { tokens, notes, candidates: {}, readable: [] };
    const candidates = fuzzyCandidates(this.#core, tenantId, tokens, q.fuzziness, q.prefixLength);
    const all = [...new Set([...candidates.values()].flatMap((found) => found.map((m) => m.term)))];
    return {
      tokens,
      notes,
      candidates: Object.fromEntries(candidates),
      readable: readableTerms(this.#core, scope, all, all.length, all.length),
    };
  }

  /**
   * Its statistics round (and an autocompletion's): over the shards asked of this node (and the tenant's other
   * text), the public chunks holding each word's stem (what orders expansions and completions, see
   * byPublicFrequency) and each index term the words rank as.
   */
  wordStats(scope: Scope, words: readonly string[], counting: StatsCounting): Promise<TextStatsAnswer> {
    const ranked = analyseMatch({ words: [...words] }, defaultQueryAnalysis).match;
    const terms = new Set([...words.map((w) => stem(w, 'en')), ...('words' in ranked ? ranked.words : [])]);
    return matchStats(this.#core, scope, { words: [...terms] }, null, counting);
  }

  /** Its ranking: the expansions the asking node chose, with the statistics summed over the shards. */
  async fuzzyRanked(
    scope: Scope,
    q: { limit: number; words: readonly string[]; notes: readonly string[] },
    stats: GivenStats,
  ): Promise<SearchAnswer> {
    await this.textLoaded(scope);
    const started = this.#monotonic();
    const hits = fuzzyHits(this.#core, scope, q.words, q.limit, stats);
    return this.#answer(started, hits, q.limit, { notes: [...q.notes], only: scope.counted });
  }

  /** Completions of a prefix in a field, most useful first. */
  autocomplete(
    scope: Scope,
    q: { prefix: string; field: string; fuzziness: number; limit: number },
  ): { suggestions: Suggestion[]; time_taken: number } {
    const started = this.#monotonic();
    const suggestions = autocomplete(this.#core, scope, q.prefix, q.field, q.fuzziness, q.limit);
    return { suggestions, time_taken: this.#elapsed(started) };
  }

  /**
   * A node's part of an autocompletion on a tenant with partitioned collections (decision 0084): `tally`, the
   * titles or values it counts; `expand`, its candidate words; `count`, the readable documents holding each word.
   */
  async completionShare(
    scope: Scope,
    q: CompletionAsked,
    round: { phase: 'tally' | 'expand' | 'count'; words?: readonly string[] | undefined; counting: StatsCounting },
  ): Promise<TallyShare | { words: string[] } | { counts: number[] }> {
    if (round.phase === 'tally') return tallyShare(this.#core, scope, q, round.counting);
    await this.textLoaded(scope);
    if (round.phase === 'expand') return candidateShare(this.#core, scope, q);
    return countShare(this.#core, scope, round.words ?? [], round.counting);
  }

  /** Search across primary tables, optionally joined (each name counted once; the joins checked against them). */
  async multiTable(
    scope: Scope,
    q: {
      tables: readonly string[];
      joins: unknown;
      query?: string | undefined;
      limit: number;
      signal?: AbortSignal | undefined;
    },
    stats?: GivenStats,
  ): Promise<SearchAnswer & { share?: { updated: Record<string, number> } }> {
    const started = this.#monotonic();
    const tables = distinctTables(q.tables);
    const joins = parseJoins(q.joins, tables);
    if (stats) await this.textLoaded(scope);
    const hits = await multiTableSearch(this.#core, scope, tables, q.query, joins, q.signal, stats);
    const answer = this.#answer(started, hits, q.limit, { only: scope.counted });
    const counted = scope.counted;
    if (!counted) return answer;
    // A node's part (service/search/partitioned-multi-table.ts): when each result was written, for the merge's order.
    const shown = hits.filter((h) => counted(h.doc)).slice(0, q.limit);
    return { ...answer, share: { updated: Object.fromEntries(shown.map((h) => [h.doc.id, h.doc.updated_at])) } };
  }

  /** Smart search: the router picks text, semantic, geo or hybrid, and the answer says which and why. */
  async smart(scope: Scope, q: SmartSearchRequest): Promise<SearchAnswer & { route: SmartRoute; reason: string }> {
    const started = this.#monotonic();
    const { query, limit, signal } = q;
    const { route, reason } = chooseRoute({ query, mode: q.mode, autoRoute: q.autoRoute, hasPoint: q.hasPoint });
    if (route !== 'geo' && query.trim() === '') throw queryRequired();
    let hits: Hit[];
    let notes: string[] = [];
    if (route === 'geo') {
      const geo = scope.geo;
      if (!geo)
        throw createError(
          'VALIDATION_FAILED',
          { detail: 'body.lat and body.lon are required for mode geo' },
          { field: 'body.lat' },
        );
      hits = geoSearch(this.#core, { ...scope, geo });
    } else if (route === 'text') {
      const type = /^".+"$/.test(query.trim()) ? 'phrase' : /[*?]/.test(query) ? 'wildcard' : 'match';
      ({ hits, notes } = textSearch(this.#core, scope, query, type, limit, this.#analysis(scope, undefined)));
    } else if (route === 'semantic') {
      ({ hits } = await vectorSearch(this.#core, this.#embedder, scope, {
        text: query,
        method: 'cosine',
        threshold: 0,
        limit,
        signal,
      }));
    } else {
      ({ hits, notes } = await hybridSearch(this.#core, this.#embedder, scope, {
        text: query,
        ...hybridDefaults,
        limit,
        useMlRanking: false,
        signal,
        analysis: this.#analysis(scope, undefined),
      }));
    }
    return { ...this.#answer(started, hits, limit, { notes }), route, reason };
  }

  /** The query pipeline: candidate stages fused or rescored, then formula, MMR and group_by (pipeline/). */
  async query(scope: Scope, q: PipelineRequest): Promise<PipelineAnswer & { time_taken: number }> {
    const started = this.#monotonic();
    const answer = await runPipeline(
      { core: this.#core, embedder: this.#embedder, collections: this.#collections, rerankers: this.#rerankers },
      scope,
      q,
    );
    return { ...answer, time_taken: this.#elapsed(started) };
  }

  /** The collection vector or model a vector query compares with (undefined: the request's model). */
  #target(scope: Scope, q: VectorInput) {
    return vectorTarget(this.#collections, scope.viewer.tenantId, {
      primary_table: scope.table,
      vector_name: q.vectorName,
      vector: q.vector,
      query: q.query,
    });
  }

  /** How the scope's text queries are analysed: `lang`, and the settings of the collection the scope names. */
  #analysis(scope: Scope, lang: AnalysisLanguage | undefined): QueryAnalysis {
    const collection =
      scope.table === undefined ? undefined : this.#collections.get(scope.viewer.tenantId, scope.table);
    return queryAnalysis(collection?.analysis, lang);
  }

  #elapsed(started: number): number {
    return Math.round((this.#monotonic() - started) * 1000) / 1000;
  }

  /** Hits as the API answers them: the top `limit` as results, all of them counted. */
  #answer(
    started: number,
    hits: readonly Hit[],
    limit: number,
    extra: Parameters<typeof finishAnswer>[4] = {},
  ): SearchAnswer {
    return finishAnswer(this.#core.rows, () => this.#elapsed(started), hits, limit, extra);
  }
}
