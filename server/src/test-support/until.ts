import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `check` until it holds: a hang detector that fails the test after `boundMs` (120 s unless given), not a
 * timing. `what` names what was awaited in the failure (a function: read when it fails, e.g. a node's output).
 *
 * @example await until(async () => (await node.call('GET', '/readyz')).status === 200, 'node c serves');
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string | (() => string),
  { boundMs = 120_000, pauseMs = 50 } = {},
): Promise<void> {
  const deadline = performance.now() + boundMs;
  while (!(await check())) {
    assert.ok(performance.now() < deadline, `never: ${typeof what === 'string' ? what : what()}`);
    await sleep(pauseMs);
  }
}
