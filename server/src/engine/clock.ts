/** Time as the engine sees it: injected so tests control it and the engine never reads the wall clock itself. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
