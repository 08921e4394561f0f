import {
  clusterHandling,
  marksStale,
  type ClusterHandling,
  createError,
  tenantDataCategories,
  type CatalogueOperation,
  type OperationId,
} from '@godb/contract';
import type { AnyUseCase, Principal, RequestContext, UseCaseOf } from './context.js';
import { addGroupUserUseCase } from './auth/add-group-user.js';
import { assignGroupPermissionUseCase } from './auth/assign-group-permission.js';
import { assignRoleUseCase } from './auth/assign-role.js';
import { apiKeyIdOf, authenticate, type Credentials } from './auth/authenticate.js';
import { createApiKeyUseCase } from './auth/create-api-key.js';
import { listApiKeysUseCase } from './auth/list-api-keys.js';
import { revokeApiKeyUseCase } from './auth/revoke-api-key.js';
import { createAdminUserUseCase } from './auth/create-admin-user.js';
import { createUserUseCase } from './auth/create-user.js';
import { BackgroundWork } from './documents/background-work.js';
import { createGroupUseCase } from './auth/create-group.js';
import { createPermissionUseCase } from './auth/create-permission.js';
import { deleteUserUseCase } from './auth/delete-user.js';
import type { AuthDeps } from './auth/deps.js';
import { addDocumentUseCase } from './documents/add-document.js';
import {
  createCollectionUseCase,
  deleteCollectionUseCase,
  getCollectionUseCase,
  listCollectionsUseCase,
  updateCollectionUseCase,
} from './collections/collections.js';
import type { CollectionDeps } from './collections/deps.js';
import type { ClusterDeps } from './cluster/deps.js';
import { getClusterUseCase } from './cluster/get-cluster.js';
import {
  countDocumentsUseCase,
  deleteDocumentsUseCase,
  scrollDocumentsUseCase,
  type DocumentScanDeps,
} from './documents/document-scan.js';
import { batchAddDocumentsUseCase } from './documents/batch-add-documents.js';
import { importDocumentsUseCase } from './documents/import-documents.js';
import { deleteDocumentUseCase } from './documents/delete-document.js';
import type { DocumentDeps } from './documents/deps.js';
import { documentStatsUseCase } from './documents/document-stats.js';
import { recordEngagementUseCase, updateEngagementUseCase } from './documents/engagement.js';
import { downloadDocumentFileUseCase } from './documents/download-document-file.js';
import { getDocumentUseCase } from './documents/get-document.js';
import { updateDocumentUseCase } from './documents/update-document.js';
import { getJobUseCase } from './documents/get-job.js';
import type { SnapshotDeps } from './snapshots/deps.js';
import {
  createSnapshotUseCase,
  deleteSnapshotUseCase,
  downloadSnapshotUseCase,
  listSnapshotsUseCase,
  restoreSnapshotUseCase,
  uploadSnapshotUseCase,
} from './snapshots/snapshots.js';
import { reclusterIndexesUseCase, refreshIndexesUseCase } from './documents/maintain-indexes.js';
import { setVisibilityUseCase } from './documents/set-visibility.js';
import { updateAclUseCase } from './documents/update-acl.js';
import { getUserUseCase } from './auth/get-user.js';
import { listUsersUseCase } from './auth/list-users.js';
import { loginUseCase } from './auth/login.js';
import { registerUseCase } from './auth/register.js';
import { removeGroupUserUseCase } from './auth/remove-group-user.js';
import { authorize } from './auth/roles.js';
import { updateUserUseCase } from './auth/update-user.js';
import { graphQueryUseCase, searchGraphUseCase } from './graph/search-graph.js';
import { searchRecommendationsUseCase } from './graph/search-recommendations.js';
import type { MailDeps } from './mail/deps.js';
import { downloadReleaseUseCase } from './mail/download-release.js';
import { sendEmailUseCase } from './mail/send-email.js';
import { sendMailUseCase } from './mail/send-mail.js';
import type { SearchDeps } from './search/deps.js';
import { searchAutocompleteUseCase } from './search/search-autocomplete.js';
import { searchFacetedUseCase } from './search/search-faceted.js';
import { searchFuzzyUseCase } from './search/search-fuzzy.js';
import { searchGeoUseCase } from './search/search-geo.js';
import { searchHybridUseCase } from './search/search-hybrid.js';
import { searchQueryUseCase } from './search/search-query.js';
import { searchMultiTableUseCase } from './search/search-multi-table.js';
import { searchSmartUseCase } from './search/search-smart.js';
import { searchTextUseCase, simpleSearchUseCase } from './search/search-text.js';
import { searchVectorUseCase } from './search/search-vector.js';
import { onHolder } from './search/partitioned-by-id.js';
import { partitionedAnswer } from './search/partitioned-search.js';
import { createEmbeddingUseCase } from './embeddings/create-embedding.js';
import { createQuantizedEmbeddingUseCase } from './embeddings/create-quantized-embedding.js';
import type { EmbeddingDeps } from './embeddings/deps.js';
import { listEmbeddingModelsUseCase } from './embeddings/list-embedding-models.js';
import { datesToUnixSeconds } from './dates.js';
import { NdjsonResult } from './ndjson-result.js';

/** An operation of the catalogue whose feature has not landed yet: it answers 501 naming the issue. */
export interface PendingOperation {
  readonly pendingIssue: number;
}

export type UseCaseTable = { readonly [Id in OperationId]: AnyUseCase | PendingOperation };

export type ServiceDeps = AuthDeps &
  EmbeddingDeps &
  DocumentDeps &
  DocumentScanDeps &
  SearchDeps &
  MailDeps &
  CollectionDeps &
  SnapshotDeps &
  ClusterDeps;

/** Marks an operation whose feature has not landed: it answers 501 naming the issue. */
export const pending = (issue: number): PendingOperation => ({ pendingIssue: issue });

/** Erases a use case's precise input type; safe because every transport validates with the same schema first. */
const erase = <Id extends OperationId>(useCase: UseCaseOf<Id>): AnyUseCase => useCase as unknown as AnyUseCase;

/**
 * Every operation of the catalogue mapped to its use case. The mapped type makes a missing operation a type
 * error, and the drift test checks the same at run time.
 */
export function createUseCases(given: ServiceDeps): UseCaseTable {
  // One bound on background writes for the whole server, shared by asynchronous adds and imports.
  const deps = { ...given, background: given.background ?? new BackgroundWork() };
  return {
    register: erase(registerUseCase(deps)),
    login: erase(loginUseCase(deps)),
    'assign-role': erase(assignRoleUseCase(deps)),
    'create-group': erase(createGroupUseCase(deps)),
    'add-group-user': erase(addGroupUserUseCase(deps)),
    'remove-group-user': erase(removeGroupUserUseCase(deps)),
    'create-permission': erase(createPermissionUseCase(deps)),
    'assign-group-permission': erase(assignGroupPermissionUseCase(deps)),
    'create-admin-user': erase(createAdminUserUseCase(deps)),
    'create-user': erase(createUserUseCase(deps)),
    'get-user': erase(getUserUseCase(deps)),
    'list-users': erase(listUsersUseCase(deps)),
    'update-user': erase(updateUserUseCase(deps)),
    'delete-user': erase(deleteUserUseCase(deps)),
    'create-api-key': erase(createApiKeyUseCase(deps)),
    'list-api-keys': erase(listApiKeysUseCase(deps)),
    'revoke-api-key': erase(revokeApiKeyUseCase(deps)),
    'add-document': erase(addDocumentUseCase(deps)),
    'batch-add-documents': erase(batchAddDocumentsUseCase(deps)),
    'import-documents': erase(importDocumentsUseCase(deps)),
    'get-document': erase(getDocumentUseCase(deps)),
    'download-document-file': erase(downloadDocumentFileUseCase(deps)),
    'update-engagement': erase(updateEngagementUseCase(deps)),
    'record-engagement': erase(recordEngagementUseCase(deps)),
    'set-visibility': erase(setVisibilityUseCase(deps)),
    'update-acl': erase(updateAclUseCase(deps)),
    'delete-document': erase(deleteDocumentUseCase(deps)),
    'document-stats': erase(documentStatsUseCase(deps)),
    'simple-search': erase(simpleSearchUseCase(deps)),
    'refresh-indexes': erase(refreshIndexesUseCase(deps)),
    'recluster-indexes': erase(reclusterIndexesUseCase(deps)),
    'get-job': erase(getJobUseCase(deps)),
    'create-snapshot': erase(createSnapshotUseCase(deps)),
    'list-snapshots': erase(listSnapshotsUseCase(deps)),
    'download-snapshot': erase(downloadSnapshotUseCase(deps)),
    'delete-snapshot': erase(deleteSnapshotUseCase(deps)),
    'restore-snapshot': erase(restoreSnapshotUseCase(deps)),
    'upload-snapshot': erase(uploadSnapshotUseCase(deps)),
    'list-embedding-models': erase(listEmbeddingModelsUseCase(deps)),
    'create-embedding': erase(createEmbeddingUseCase(deps)),
    'create-quantized-embedding': erase(createQuantizedEmbeddingUseCase(deps)),
    'search-autocomplete': erase(searchAutocompleteUseCase(deps)),
    'search-text': erase(searchTextUseCase(deps)),
    'search-vector': erase(searchVectorUseCase(deps)),
    'search-hybrid': erase(searchHybridUseCase(deps)),
    'search-query': erase(searchQueryUseCase(deps)),
    'search-geo': erase(searchGeoUseCase(deps)),
    'search-faceted': erase(searchFacetedUseCase(deps)),
    'search-fuzzy': erase(searchFuzzyUseCase(deps)),
    'search-smart': erase(searchSmartUseCase(deps)),
    'search-multi-table': erase(searchMultiTableUseCase(deps)),
    'search-recommendations': erase(searchRecommendationsUseCase(deps)),
    'search-graph': erase(searchGraphUseCase(deps)),
    'graph-query': erase(graphQueryUseCase(deps)),
    'send-email': erase(sendEmailUseCase(deps)),
    'send-mail': erase(sendMailUseCase(deps)),
    'download-release': erase(downloadReleaseUseCase(deps)),
    'create-collection': erase(createCollectionUseCase(deps)),
    'list-collections': erase(listCollectionsUseCase(deps)),
    'get-collection': erase(getCollectionUseCase(deps)),
    'update-collection': erase(updateCollectionUseCase(deps)),
    'delete-collection': erase(deleteCollectionUseCase(deps)),
    'update-document': erase(updateDocumentUseCase(deps)),
    'count-documents': erase(countDocumentsUseCase(deps)),
    'scroll-documents': erase(scrollDocumentsUseCase(deps)),
    'delete-documents': erase(deleteDocumentsUseCase(deps)),
    'get-cluster': erase(getClusterUseCase(deps)),
  };
}

export interface Services {
  /** Verifies a login token or an API key and loads its principal. */
  authenticate(credentials: Credentials): Promise<Principal>;
  /** The id of the valid API key a call presents, or null: such calls are rate limited per key, not per address. */
  apiKeyIdOf(credentials: Credentials): string | null;
  /** Takes one request from an API key's budget (shared by REST and gRPC); throws RATE_LIMITED when it is spent. */
  throttleApiKey(keyId: string): void;
  /** Checks access, then runs the operation's use case. The one entry point of every transport. */
  invoke(operation: CatalogueOperation, input: Parameters<AnyUseCase>[0], ctx: RequestContext): Promise<unknown>;
  /** The issue an operation waits for, or undefined when it is implemented. */
  pendingIssue(id: OperationId): number | undefined;
  /**
   * Cluster mode: this node's place in the shards an answer to a caller of `tenantId` depends on (the directory's and
   * the tenant's, `0:17,5:42`; answers carry it as X-GoDB-Seq); else null.
   */
  clusterPosition(tenantId?: string): string | null;
  /**
   * Cluster mode: why an answer of `operation` to a caller of `tenantId` may be stale (X-GoDB-Stale; only for the
   * operations that read this node's copy, see marksStale), or null when it is current or the operation reads none.
   */
  clusterStale(operation: OperationId, tenantId?: string): string | null;
}

/** The lines of a streamed answer, then `end` however the reading stops. */
async function* endWith<T>(lines: AsyncIterable<T>, end: () => void): AsyncGenerator<T> {
  try {
    yield* lines;
  } finally {
    end();
  }
}

/** The lines of a streamed answer, each produced inside `run` (cluster mode: named by the request's key). */
async function* within<T>(lines: AsyncIterable<T>, run: <R>(work: () => R) => R): AsyncGenerator<T> {
  const iterator = lines[Symbol.asyncIterator]();
  try {
    for (let next = await run(() => iterator.next()); !next.done; next = await run(() => iterator.next())) {
      yield next.value;
    }
  } finally {
    await iterator.return?.();
  }
}

/** Categories whose operations read or change a tenant's data: refused while that tenant is being restored. */
const tenantData: ReadonlySet<string> = new Set(tenantDataCategories);

export function createServices(given: ServiceDeps): Services {
  // One bound on background writes for the whole server, shared by asynchronous adds and imports; its activity
  // also counts the requests under way per tenant, which a tenant restore waits for.
  const deps = { ...given, background: given.background ?? new BackgroundWork() };
  const activity = deps.background.activity;
  const table = createUseCases(deps);
  /** Admits a data request of a tenant (refused while the tenant is restored) and counts it until it ends. */
  const admit = (tenantId: string, operation: CatalogueOperation) => {
    const snapshot = deps.restore?.restoring(tenantId);
    if (snapshot !== undefined)
      throw createError('TENANT_RESTORING', { snapshot_id: snapshot }, { details: { retry_after: 5 } });
    return activity.begin(tenantId, `${operation.http.method} ${operation.http.path}`);
  };
  /** Cluster mode: refuses every request while this node catches up with the log it started behind. */
  const refuseWhileStarting = () => {
    const starting = deps.log.startingUp();
    if (starting) {
      throw createError(
        'CLUSTER_CATCHING_UP',
        {
          started_behind: starting.target - starting.from,
          applied: starting.applied,
          target: starting.target,
        },
        { details: { retry_after: 1 } },
      );
    }
  };
  return {
    authenticate: async (credentials) => {
      refuseWhileStarting();
      return authenticate(deps, credentials);
    },
    apiKeyIdOf: (credentials) => apiKeyIdOf(deps, credentials),
    throttleApiKey: (keyId) => deps.apiKeyRateLimit.take(keyId),
    async invoke(operation, input, ctx) {
      refuseWhileStarting();
      authorize(operation.access, ctx.principal);
      // None is refused today; an operation added to the catalogue may be, until the log carries it.
      const handlings: Readonly<Record<string, ClusterHandling>> = clusterHandling;
      if (handlings[operation.id] === 'refused') {
        throw createError('CLUSTER_NOT_REPLICATED', {
          operation: `${operation.http.method} ${operation.http.path}`,
          detail: 'Reads, and the writes the README lists under "Cluster mode (preview)", work on every node.',
        });
      }
      if (ctx.consistency) await deps.log.catchUp(ctx.consistency, ctx.principal?.tenantId, ctx.signal);
      const entry = table[operation.id];
      if ('pendingIssue' in entry) {
        throw createError('NOT_IMPLEMENTED', {
          operation: `${operation.http.method} ${operation.http.path}`,
          issue: entry.pendingIssue,
        });
      }
      // A search of a partitioned collection is answered by the nodes holding its shards (decision 0062).
      const fanned = await partitionedAnswer(deps.partitions, operation.id, input.body, ctx);
      if (fanned !== undefined) return fanned;
      // A request by id through a node without the document's shard runs on a holder (decision 0076).
      return onHolder(deps.partitions, operation.id, input, ctx, async () => {
        const tenantId = ctx.principal?.tenantId;
        const end =
          tenantId !== undefined && tenantData.has(operation.category) ? admit(tenantId, operation) : undefined;
        let streamed = false;
        try {
          // The one conversion point of date-like fields, after validation and before any use case.
          const run = () => entry({ ...input, body: datesToUnixSeconds(operation.body, input.body) }, ctx);
          // A replicated write sent with an Idempotency-Key submits operations named by it, per tenant.
          const key = ctx.idempotencyKey;
          const named =
            key !== undefined && clusterHandling[operation.id] === 'replicated'
              ? deps.log.idempotent(ctx.principal?.tenantId ?? '', key)
              : null;
          const answer = await (named ? named(run) : run());
          // A streamed answer writes while the transport reads it: its writes are named by the key too.
          const result =
            named && answer instanceof NdjsonResult ? new NdjsonResult(within(answer.lines, named)) : answer;
          if (!(result instanceof NdjsonResult) || !end) return result;
          // A streamed answer (an NDJSON import) works while the transport reads it: it counts until it ends.
          streamed = true;
          return new NdjsonResult(endWith(result.lines, end));
        } finally {
          if (!streamed) end?.();
        }
      });
    },
    clusterPosition: (tenantId) => deps.log.position(tenantId),
    clusterStale: (operation, tenantId) =>
      marksStale(operation) ? (deps.log.staleness(tenantId)?.reason ?? null) : null,
    pendingIssue(id) {
      const entry = table[id];
      return 'pendingIssue' in entry ? entry.pendingIssue : undefined;
    },
  };
}
