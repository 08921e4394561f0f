/** Time as the engine sees it: injected so tests control it and the engine never reads the wall clock itself. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

// The one place the engine's clock touches the wall clock; everything else receives a Clock.
// eslint-disable-next-line no-restricted-properties
export const systemClock: Clock = { now: () => Date.now() };

export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}

/** Milliseconds from an arbitrary origin that never go back: durations the engine reports (`time_taken`). */
export type Monotonic = () => number;

/** The one place the engine reads the monotonic clock; searches receive it as a `Monotonic`. */
export const systemMonotonic: Monotonic = () => performance.now();
