import { createError } from '@godb/contract';
import { countDocuments, matchingDocuments, scrollDocuments } from '../../engine/search/document-scan.js';
import { parseFilters } from '../../engine/search/filters.js';
import type { Scope } from '../../engine/search/scope.js';
import type { SearchCore } from '../../engine/search/search-core.js';
import type { DocumentCommands } from '../../engine/operations/document-commands.js';
import type { Documents } from '../../engine/documents/documents.js';
import { nextTurn } from '../../engine/next-turn.js';
import type { RequestContext, UseCaseOf } from '../context.js';
import { viewerOf } from './viewer.js';
import { deletable } from './document-policy.js';

export interface DocumentScanDeps {
  readonly search: SearchCore;
  readonly documents: Documents;
  readonly commands: DocumentCommands;
  readonly now: () => number;
}

/** Ids deleted per transaction by delete by filter: other requests are served between batches. */
const deletesPerBatch = 500;

function scopeOf(deps: DocumentScanDeps, ctx: RequestContext, table: string | undefined, filter: unknown): Scope {
  return {
    viewer: viewerOf(ctx),
    now: Math.floor(deps.now() / 1000),
    table,
    filters: parseFilters(filter, 'body.filter'),
  };
}

/** The cursor is the last id of the previous page, base64url-encoded (opaque to clients, readable in logs). */
const encodeCursor = (id: string) => Buffer.from(id, 'utf8').toString('base64url');
function decodeCursor(cursor: string | undefined): string | null {
  if (cursor === undefined || cursor === '') return null;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (id === '' || encodeCursor(id) !== cursor) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: 'body.cursor is not a cursor this API gave: pass next_cursor of the previous page unchanged' },
      { field: 'body.cursor' },
    );
  }
  return id;
}

export const countDocumentsUseCase =
  (deps: DocumentScanDeps): UseCaseOf<'count-documents'> =>
  async ({ body }, ctx) => ({
    count: await countDocuments(
      deps.search,
      scopeOf(deps, ctx, body.primary_table, body.filter),
      ctx.signal,
      ctx.partition?.keep,
    ),
  });

export const scrollDocumentsUseCase =
  (deps: DocumentScanDeps): UseCaseOf<'scroll-documents'> =>
  async ({ body }, ctx) => {
    const scope = scopeOf(deps, ctx, body.primary_table, body.filter);
    const { documents, next } = await scrollDocuments(
      deps.search,
      scope,
      decodeCursor(body.cursor),
      body.limit,
      ctx.signal,
    );
    const flags = {
      include_embeddings: body.with_vectors,
      include_chunks: false,
      include_metadata: true,
      include_acl: false,
      include_stats: false,
    };
    return {
      documents: documents.map((doc) => deps.documents.reads.get(scope.viewer, doc.id, flags)) as never,
      ...(next !== null && { next_cursor: encodeCursor(next) }),
    };
  };

export const deleteDocumentsUseCase =
  (deps: DocumentScanDeps): UseCaseOf<'delete-documents'> =>
  async ({ body }, ctx) => {
    const scope = scopeOf(deps, ctx, body.primary_table, body.filter);
    if (!scope.filters) {
      throw createError(
        'VALIDATION_FAILED',
        {
          detail:
            'body.filter must hold at least one condition (to empty a collection, an admin deletes the collection)',
        },
        { field: 'body.filter' },
      );
    }
    // A partitioned collection's node deletes the shards asked of it (each batch goes to their subjects).
    const keep = ctx.partition?.keep ?? (() => true);
    const ids = (await matchingDocuments(deps.search, scope, ctx.signal)).filter(keep).map((d) => d.id);
    let deleted = 0;
    let skipped = 0;
    for (let i = 0; i < ids.length; i += deletesPerBatch) {
      if (i > 0) await nextTurn(ctx.signal);
      // Decided here, batch by batch, on the matched documents as they are now; the engine deletes only those.
      const facts = deps.documents.reads.batchDeletion(scope.viewer, ids.slice(i, i + deletesPerBatch));
      const owned = deletable(scope.viewer, facts);
      skipped += facts.targets.length - owned.length;
      const decidedOn = Object.fromEntries(owned.map((target) => [target.id, target.stamp]));
      const done = await deps.commands.deleteSome(
        scope.viewer,
        owned.map((target) => target.id),
        body.permanent,
        decidedOn,
        body.primary_table,
      );
      deleted += done.deleted;
      skipped += done.skipped;
    }
    return { success: true as const, deleted, skipped };
  };
