/**
 * The data work under way per tenant — requests being answered and background writes (asynchronous adds and
 * imports) — so that a tenant restore can wait until nothing of the tenant is still reading or writing, once its
 * fence stops new work from starting.
 */
export class TenantActivity {
  readonly #running = new Map<string, number>();
  readonly #waiting = new Map<string, (() => void)[]>();

  /** Counts one piece of work of the tenant until `end` is called (once). */
  begin(tenantId: string): () => void {
    this.#running.set(tenantId, (this.#running.get(tenantId) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.#running.get(tenantId) ?? 1) - 1;
      if (left > 0) {
        this.#running.set(tenantId, left);
        return;
      }
      this.#running.delete(tenantId);
      for (const wake of this.#waiting.get(tenantId) ?? []) wake();
      this.#waiting.delete(tenantId);
    };
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
