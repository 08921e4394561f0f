import { isGoDBError } from '@godb/contract';
import type { RequestContext } from '../context.js';
import type { PartitionedSearch } from './partitioned-search.js';

/**
 * The requests by a document's id that a node not holding the document's shard passes to a holder (its file's
 * download, a stream, is not: it answers 404 through such a node).
 */
const byId: ReadonlySet<string> = new Set([
  'get-document',
  'update-document',
  'delete-document',
  'set-visibility',
  'update-acl',
  'update-engagement',
  'record-engagement',
]);

const notFound = (error: unknown) => isGoDBError(error) && error.code === 'NOT_FOUND';

/**
 * Cluster mode, partitioned collections (decision 0076): a request by id (get, partial update, delete, visibility,
 * access list, engagement) runs here
 * first; when the document is not here (404) and a partitioned collection of the tenant has the id's shard on other
 * nodes only, the request runs on that shard's first live replica instead (its access rules and decisions there,
 * its writes through the log as always), the first answer other than 404 being the answer.
 *
 * @example return onHolder(partitions, 'get-document', input, ctx, () => runHere());
 */
export async function onHolder(
  partitions: PartitionedSearch | null | undefined,
  operationId: string,
  input: { readonly params: unknown; readonly query: unknown; readonly body: unknown },
  ctx: RequestContext,
  here: () => Promise<unknown>,
): Promise<unknown> {
  if (!partitions || ctx.partitionLocal || !ctx.principal || !byId.has(operationId)) return here();
  const id = (input.params as { id?: unknown } | undefined)?.id;
  try {
    return await here();
  } catch (error) {
    if (!notFound(error) || typeof id !== 'string') throw error;
    for (const node of await partitions.holdersElsewhere(ctx.principal.tenantId, id)) {
      try {
        return await partitions.ask(node, operationId, input, ctx.principal, {
          idempotencyKey: ctx.idempotencyKey,
          consistency: ctx.consistency,
        });
      } catch (elsewhere) {
        if (!notFound(elsewhere)) throw elsewhere;
      }
    }
    throw error;
  }
}
