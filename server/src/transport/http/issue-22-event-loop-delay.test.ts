import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { startTestServer } from '../../test-support/server.js';

// Issue #22: single requests blocked the whole server for seconds and nothing showed it. /metrics now reports the
// event-loop delay (perf_hooks.monitorEventLoopDelay) over each scrape interval.

function gauge(text: string, line: RegExp): number {
  const match = line.exec(text);
  assert.ok(match, `missing ${line}`);
  return Number(match[1]);
}

test('/metrics reports the event-loop delay since the previous scrape: p50, p99 and max in seconds', async () => {
  const server = await startTestServer();
  try {
    const scrape = async () => (await server.app.inject({ url: '/metrics' })).body;
    await scrape();
    // Block this process's event loop (the server shares it) for 300 ms in a callback, as a slow synchronous
    // request would, then give the monitor's timer a turn to record how late it fired.
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        const until = performance.now() + 300;
        while (performance.now() < until) {
          // busy
        }
        resolve();
      }, 20),
    );
    await delay(50);
    const text = await scrape();
    assert.match(text, /# TYPE godb_event_loop_delay_seconds gauge/);
    const max = gauge(text, /^godb_event_loop_delay_max_seconds ([\d.e+-]+)$/m);
    assert.ok(max >= 0.2, `max ${max} s after a 300 ms block`);
    const p50 = gauge(text, /^godb_event_loop_delay_seconds\{quantile="0\.5"\} ([\d.e+-]+)$/m);
    const p99 = gauge(text, /^godb_event_loop_delay_seconds\{quantile="0\.99"\} ([\d.e+-]+)$/m);
    assert.ok(p50 <= p99 && p99 <= max, `${p50} ≤ ${p99} ≤ ${max}`);
    // The next interval starts afresh: the block is not reported twice.
    assert.ok(gauge(await scrape(), /^godb_event_loop_delay_max_seconds ([\d.e+-]+)$/m) < max);
  } finally {
    await server.close();
  }
});
