import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SliceSizer } from './slices.js';

/** A clock that a slice moves forward by the milliseconds its rows cost. */
function workClock() {
  let now = 0;
  return { clock: { now: () => now }, spend: (ms: number) => void (now += ms) };
}

describe('slices sized by time', () => {
  it('grows while slices are quick and settles where one takes about the budget', () => {
    const { clock, spend } = workClock();
    const sizer = new SliceSizer(clock, 1_000_000, 40);
    // Rows that cost 0.01 ms each: about 4,000 fit in 40 ms.
    for (let i = 0; i < 30; i += 1) sizer.measure((size) => spend(size * 0.01));
    assert.ok(sizer.size > 3000 && sizer.size < 5500, `settled at ${sizer.size} rows`);
  });

  it('shrinks after a slow slice, never below one row nor above its maximum', () => {
    const { clock, spend } = workClock();
    const sizer = new SliceSizer(clock, 500, 40);
    for (let i = 0; i < 20; i += 1) sizer.measure(() => undefined);
    assert.equal(sizer.size, 500, 'free slices stop at the maximum');
    sizer.measure((size) => spend(size * 10));
    assert.ok(sizer.size < 500 && sizer.size >= 1, `a slow slice shrinks the next (${sizer.size})`);
    for (let i = 0; i < 20; i += 1) sizer.measure(() => spend(1000));
    assert.equal(sizer.size, 1);
  });
});
