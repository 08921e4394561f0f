import { setTimeout as sleep } from 'node:timers/promises';
import { retryPauseMs } from './shard-streams.js';

/** The pause before a node whose apply failed for a reason of its own (see ShardApplier) tries the operation again. */
const haltedRetryMs = 2_000;

/**
 * Runs `consume` again and again until `closing` aborts: a consumer that stops (its NATS server died, the stream was
 * electing a leader) is made again after a pause, longer when the last apply `halted()`. Errors go to `failed`.
 */
export async function consumeUntilClosed(
  closing: AbortSignal,
  consume: () => Promise<void>,
  halted: () => boolean,
  failed: (error: unknown) => void,
): Promise<void> {
  while (!closing.aborted) {
    try {
      await consume();
    } catch (error) {
      if (!closing.aborted) failed(error);
    }
    if (!closing.aborted) await sleep(halted() ? haltedRetryMs : retryPauseMs);
  }
}
