/**
 * Runs long work (building a derived index) one slice per turn of the event loop, so requests are served between
 * slices. `slice` does a bounded amount of work and answers true once there is nothing left to do.
 */
export function inSlices(slice: () => boolean): void {
  const next = () => {
    if (!slice()) setImmediate(next);
  };
  setImmediate(next);
}
