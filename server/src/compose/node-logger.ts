import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/env.js';
import { stdoutLogDestination } from '../logging/log-destination.js';

type LogLine = (obj: object, message: string) => void;

/**
 * Lines logged before the HTTP app (and its pino logger) exists, in pino's JSON shape: the cluster snapshot a node
 * restores at start-up.
 */
function startupLogger(level: Config['LOG_LEVEL']): { info: LogLine; warn: LogLine; error: LogLine } {
  const levels: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
  const line = (n: number) => (obj: object, msg: string) => {
    if (n < (levels[level] ?? Infinity)) return;
    // An error is written with its type, message and stack, as pino's serializer writes it.
    const { err, ...rest } = obj as { err?: unknown };
    const error = err instanceof Error && { err: { type: err.name, message: err.message, stack: err.stack } };
    stdoutLogDestination().write(`${JSON.stringify({ level: n, time: Date.now(), ...rest, ...error, msg })}\n`);
  };
  return { info: line(30), warn: line(40), error: line(50) };
}

/**
 * What the node logs through: the start-up lines until the HTTP app exists, then the app's logger (the release
 * builder and the cluster's parts log through it).
 *
 * @example const logger = new NodeLogger('info'); logger.info({}, 'starting'); logger.useApp(app.log);
 */
export class NodeLogger {
  #app: FastifyInstance['log'] | null = null;
  readonly #startup: ReturnType<typeof startupLogger>;

  constructor(level: Config['LOG_LEVEL']) {
    this.#startup = startupLogger(level);
  }

  /** The app's logger, or null before the app exists (for lines that are not worth a start-up line). */
  get app(): FastifyInstance['log'] | null {
    return this.#app;
  }

  /** From now on, every line goes to the app's logger. */
  useApp(log: FastifyInstance['log']): void {
    this.#app = log;
  }

  readonly info: LogLine = (obj, message) => (this.#app ?? this.#startup).info(obj, message);
  readonly warn: LogLine = (obj, message) => (this.#app ?? this.#startup).warn(obj, message);
  readonly error: LogLine = (obj, message) => (this.#app ?? this.#startup).error(obj, message);
}
