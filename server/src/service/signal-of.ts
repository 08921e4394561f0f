import type { RequestContext } from './context.js';

/**
 * The request's abort signal (its answer deadline passed or its client went away), when the transport gives one.
 * Read through this helper so use cases work before and after `RequestContext` declares `signal`.
 */
export const signalOf = (ctx: RequestContext): AbortSignal | undefined =>
  (ctx as RequestContext & { readonly signal?: AbortSignal }).signal;
