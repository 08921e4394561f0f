import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError } from '../config/env.js';

/** How many times a start-up step asks JetStream before the node gives up. */
const defaultAttempts = 8;
/** The first pause between two attempts; it doubles, up to {@link longestPauseMs}. */
const firstPauseMs = 500;
const longestPauseMs = 8_000;

export interface StartRetryOptions {
  readonly attempts?: number;
  readonly firstPauseMs?: number;
}

/** Retries from this attempt on are logged at warn: the first ones are what a normal start meets (see below). */
const warnFromAttempt = 4;

/** Where the retries are told: the node's log (before its HTTP app exists, compose/node-logger.ts's start-up lines). */
export interface StartLogger {
  info(obj: object, message: string): void;
  warn(obj: object, message: string): void;
}

/** What the cluster's parts log through: the retries at start, and their own lines. */
export interface ClusterLogger extends StartLogger {
  error(obj: object, message: string): void;
}

/**
 * Runs one step of a cluster node's start that asks JetStream something (list the shard streams, open a KV bucket
 * or an object store), and runs it again after a pause when it fails: a node that starts while the NATS servers are
 * busy (another node replays a backlog, a snapshot is uploaded) or elect a leader must come up once they answer, not
 * exit on the first request that timed out (the client's JetStream requests time out after 5 s). Bounded: 8
 * attempts, pauses from 0.5 s doubling to 8 s, about a minute with the requests' own timeouts; each failure is
 * logged with what was asked, and after the last the node refuses to start (a ConfigError: one line, exit 2) rather
 * than wait for ever. A ConfigError of the step itself (a setting the cluster refuses) is not retried.
 *
 * A normal start of a whole cluster meets one or two of these (three nodes make the same streams and buckets while
 * JetStream elects their leaders), so the first three are logged at info as the expected retries they are, later
 * ones at warn (about 20 s in: no longer a start's usual wait); only the last is an error, the ConfigError.
 *
 * @example const kv = await retryAtStart('opening the KV bucket godb-cluster', () => new Kvm(nc).create(name), logger);
 */
export async function retryAtStart<T>(
  what: string,
  step: () => Promise<T>,
  logger: StartLogger,
  options: StartRetryOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? defaultAttempts;
  let pauseMs = options.firstPauseMs ?? firstPauseMs;
  const started = performance.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await step();
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      if (attempt >= attempts) {
        const seconds = Math.round((performance.now() - started) / 1000);
        throw new ConfigError(
          `Cluster mode: the node could not start: ${what} failed ${attempts} times in ${seconds} s (the last: ${reason}). Check that a majority of the NATS servers at NATS_URL run with JetStream and answer (their monitoring port's /healthz), then start the node again.`,
        );
      }
      const log = attempt >= warnFromAttempt ? logger.warn : logger.info;
      const seconds = Math.round((performance.now() - started) / 1000);
      log.call(
        logger,
        { step: what, attempt, of: attempts, retry_in_ms: pauseMs, reason },
        attempt >= warnFromAttempt
          ? `cluster mode: JetStream has not answered for ${seconds} s while this node starts (${what}); trying again, ${attempts - attempt} attempts left`
          : `cluster mode: JetStream did not answer yet while this node starts (${what}), an expected retry while the NATS servers elect leaders; trying again`,
      );
      await sleep(pauseMs);
      pauseMs = Math.min(pauseMs * 2, longestPauseMs);
    }
  }
}
