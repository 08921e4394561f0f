/**
 * Lets the event loop serve other requests between slices of one request's long work, then stops that work
 * (throwing the signal's reason) when the request was abandoned: its deadline passed or its client went away.
 *
 * @example for (let i = 0; i < items.length; i += 1) { if (i % 1000 === 999) await nextTurn(signal); work(items[i]); }
 */
export async function nextTurn(signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  await new Promise((resolve) => setImmediate(resolve));
  signal?.throwIfAborted();
}
