import type { OperationClock } from '../engine/operations/operation-clock.js';

/** The engine's clock as a write's time is decided with it (the composition root passes Engine.clock). */
export type WriteClock = Pick<OperationClock, 'now' | 'during'>;

/**
 * Runs a write of the embedded store at a time decided before it runs — its `now`, as the replicated log's applier
 * runs an operation at the time its taking node decided — so every timestamp it stores is that time. Without a
 * clock (deps built by a test), the write reads the engine's clock as it goes.
 *
 * @example const user = atDecidedTime(deps.writeClock, () => deps.directory.createUser(user));
 */
export function atDecidedTime<T>(clock: WriteClock | undefined, work: () => T): T {
  return clock ? clock.during(clock.now(), work) : work();
}
