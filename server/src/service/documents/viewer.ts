import type { Viewer } from '../../engine/documents/types.js';
import { principalOf, type RequestContext } from '../context.js';

/** The engine's view of the caller. */
export function viewerOf(ctx: RequestContext): Viewer {
  const principal = principalOf(ctx);
  return { tenantId: principal.tenantId, userId: principal.userId, groups: principal.groups };
}
