/**
 * A signal that aborts after `ms`, or when `signal` does. Node's `AbortSignal.timeout()` clears its timer once the
 * signal is garbage collected, and `AbortSignal.any()` holds its sources weakly, so `AbortSignal.any([signal,
 * AbortSignal.timeout(ms)])` can lose its deadline when nothing else holds the timeout signal: a wait bounded that
 * way then waits for ever (a strong read in cluster mode did, once, until the request's own 120 s timeout). Here a
 * plain timer holds the controller until `clear()` or the deadline.
 *
 * @example const bound = abortAfter(5000, request.signal); try { await work(bound.signal); } finally { bound.clear(); }
 */
export function abortAfter(ms: number, signal?: AbortSignal): { readonly signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')), ms);
  const follow = () => controller.abort(signal?.reason);
  if (signal?.aborted) follow();
  else signal?.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', follow);
    },
  };
}
