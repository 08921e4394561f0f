import type { Static, TSchema } from '@sinclair/typebox';
import type { Operation, OperationId, OperationSpec, RoleName } from '@godb/contract';
import type { Consistency } from '../engine/operations/operation.js';
import type { StatsCounting } from '../engine/search/text-stats.js';
import type { CountedDocument, SearchPhase } from '../engine/search/scope.js';
import type { GivenStats } from '../engine/text/bm25-score.js';

export type { Consistency };

/** Who is calling, as established from a verified token and the current state of the directory. */
export interface Principal {
  readonly userId: string;
  readonly tenantId: string;
  readonly email: string;
  readonly role: RoleName;
  readonly groups: readonly string[];
  /** The API key the call was authenticated with; absent for a login token. */
  readonly apiKeyId?: string;
}

/** What a transport knows about the call besides its input. */
export interface RequestContext {
  readonly principal: Principal | null;
  readonly requestId: string;
  /** The client's address, for throttling anonymous calls. */
  readonly clientAddress?: string;
  /**
   * Aborted when the caller goes away or its deadline passes (the reason is the catalogue error to answer). Long
   * work takes it (embedding jobs, provider fetches) and stops, so abandoned calls do not hold the server.
   */
  readonly signal?: AbortSignal;
  /** Cluster mode: how much of the replicated log this node must have applied before the operation runs. */
  readonly consistency?: Consistency;
  /** Cluster mode: the Idempotency-Key of a replicated write (a retry with the same key is applied once). */
  readonly idempotencyKey?: string;
  /**
   * Cluster mode: the call runs here for another node's fan-out over a partitioned collection (decision 0062), so
   * it answers from this node's shards and is not fanned out again.
   */
  readonly partitionLocal?: boolean;
  /** Cluster mode, with partitionLocal: the shards asked of this node, and the round of a two-round search. */
  readonly partition?: PartitionRun;
}

/** How a node runs its part of a fanned-out search of a partitioned collection (decision 0076). */
export interface PartitionRun {
  /** Whether a document is in the shards asked of this node: what a statistic or count counts. */
  readonly keep: CountedDocument;
  /**
   * `stats`: the first round of a text or hybrid search: answer the query's statistics here (TextStatsAnswer), not
   * hits. `sides`: a hybrid search's second round: answer each side's documents (HybridSidesAnswer), not fused.
   * `expand`, `tally`, `count`: a fuzzy search's or an autocompletion's rounds (decisions 0083, 0084). `nodes`,
   * `features`: a graph query's (decision 0090): the documents counted here as graph nodes, then the content vector
   * sums of those among `ids`. `seeds`, `scores`, `ranked`: a recommendation's (decision 0092), with `given`.
   * `readable`: which of `words` the caller may read here (a wildcard's expansions, decision 0093).
   */
  readonly phase?: SearchPhase;
  /** The dfs round and a search of the whole tenant: what this node counts (text-stats.ts). */
  readonly counting?: StatsCounting;
  /** The second round: rank with these statistics (summed over the shards). */
  readonly stats?: GivenStats;
  /**
   * A fuzzy search's later rounds (decision 0083): the expansions the asking node chose (`expand` answered each
   * node's candidates), whose statistics or ranking this node answers, and the notes that name them.
   */
  readonly words?: readonly string[];
  readonly notes?: readonly string[];
  /** A graph query's `features` round: the documents whose content vector sums are asked. */
  readonly ids?: readonly string[];
  /** A recommendation's later rounds: the plan every part ranks with, and the strategies' maxima. */
  readonly given?: unknown;
}

type StaticOr<S, Fallback> = S extends TSchema ? Static<S> : Fallback;

/** The validated input of an operation, as every transport hands it to a use case. */
export interface InputOf<O extends OperationSpec> {
  readonly params: StaticOr<O['params'], Record<string, never>>;
  readonly query: StaticOr<O['query'], Record<string, never>>;
  /** An NDJSON operation's body is the stream of its bytes, read by the use case as it arrives. */
  readonly body: O extends { ndjson: object } | { binary: object }
    ? AsyncIterable<Uint8Array>
    : StaticOr<O['body'], undefined>;
}

export type OutputOf<O extends OperationSpec> = Static<O['success']['schema']>;

/** One use case: the same function serves REST and gRPC. */
export type UseCase<O extends OperationSpec> = (input: InputOf<O>, ctx: RequestContext) => Promise<OutputOf<O>>;

/** A use case with its input erased, as the transports call it. */
export type AnyUseCase = (
  input: { params: unknown; query: unknown; body: unknown },
  ctx: RequestContext,
) => Promise<unknown>;

/** The principal of an authenticated call; the transport has already refused anonymous calls to such operations. */
export function principalOf(ctx: RequestContext): Principal {
  if (!ctx.principal) throw new TypeError('principalOf called on an anonymous request: check the operation access');
  return ctx.principal;
}

/** The use case type of the operation with this id. */
export type UseCaseOf<Id extends OperationId> = UseCase<Extract<Operation, { id: Id }>>;
