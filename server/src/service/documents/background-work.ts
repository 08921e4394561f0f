import { createError } from '@godb/contract';
import { TenantActivity } from '../tenant-activity.js';

/** Background writes (asynchronous adds and imports) pending at once, across the server. */
export const maxBackgroundWork = 32;

/**
 * Bounds the asynchronous adds and imports waiting or running: each holds its prepared documents in memory until
 * it is written, and its request's slot was released by the 202, so without a bound one client could queue
 * documents faster than they are embedded until the server runs out of memory. Beyond the bound: 503 OVERLOADED.
 */
export class BackgroundWork {
  #pending = 0;

  constructor(
    readonly max = maxBackgroundWork,
    /** Counts each piece of work as its tenant's until it ends (a tenant restore waits for them). */
    readonly activity = new TenantActivity(),
  ) {}

  /**
   * Runs `work` of a tenant in the background (after this turn of the event loop), or throws OVERLOADED when full.
   */
  start(tenantId: string, work: () => Promise<void>, what = 'background write'): void {
    if (this.#pending >= this.max) {
      throw createError('OVERLOADED', { max: this.max }, { details: { retry_after: 5 } });
    }
    this.#pending += 1;
    const end = this.activity.begin(tenantId, what);
    setImmediate(() => {
      void work().finally(() => {
        this.#pending -= 1;
        end();
      });
    });
  }
}
