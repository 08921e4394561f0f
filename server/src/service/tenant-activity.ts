/**
 * The data work under way per tenant — requests being answered and background writes (asynchronous adds and
 * imports) — so that a tenant restore can wait until nothing of the tenant is still reading or writing, once its
 * fence stops new work from starting, and name what it is still waiting for when that takes too long.
 */
export class TenantActivity {
  /** Per tenant, what runs (an operation, "background write") and how many of it. */
  readonly #running = new Map<string, Map<string, number>>();
  readonly #waiting = new Map<string, (() => void)[]>();

  /**
   * Counts one piece of work of the tenant, described by `what`, until `end` is called (once).
   *
   * @example const end = activity.begin(tenantId, 'POST /api/v1/search/text'); try { ... } finally { end(); }
   */
  begin(tenantId: string, what = 'a request'): () => void {
    const running = this.#running.get(tenantId) ?? new Map<string, number>();
    running.set(what, (running.get(what) ?? 0) + 1);
    this.#running.set(tenantId, running);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (running.get(what) ?? 1) - 1;
      if (left > 0) running.set(what, left);
      else running.delete(what);
      if (running.size > 0) return;
      this.#running.delete(tenantId);
      for (const wake of this.#waiting.get(tenantId) ?? []) wake();
      this.#waiting.delete(tenantId);
    };
  }

  /** What of the tenant is running now, as `2 × POST /api/v1/documents/import, 1 × background write`; '' when idle. */
  describe(tenantId: string): string {
    return [...(this.#running.get(tenantId) ?? new Map<string, number>())]
      .map(([what, count]) => `${count} × ${what}`)
      .join(', ');
  }

  /** Resolves once no work of the tenant is running (at once when none is). */
  idle(tenantId: string): Promise<void> {
    if (!this.#running.has(tenantId)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiting = this.#waiting.get(tenantId) ?? [];
      waiting.push(resolve);
      this.#waiting.set(tenantId, waiting);
    });
  }
}
