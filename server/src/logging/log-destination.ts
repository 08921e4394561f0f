import type { Writable } from 'node:stream';

/**
 * Where the server's log lines go, written so that logs are never the reason the process blocks or cannot stop.
 *
 * pino's default destination (sonic-boom 4.2.1, the latest release) loops for ever in `flushSync()` when a write
 * fails with anything but EAGAIN/EBUSY (EPIPE once the reader of stdout has gone), and retries EAGAIN for ever when
 * the reader stops reading; pino calls that `flushSync()` from its `process.on('exit')` hook, so the process closed
 * its ports and then never exited (issue #24). This destination writes through the process's own stream instead
 * (for a pipe, a non-blocking libuv stream: a full pipe queues, it never blocks the main thread), bounds what may
 * queue, and stops writing for good when the stream breaks. pino registers no exit hook for a stream it did not
 * create, and calls `flushSync()` (from `log.fatal()`) only when the stream has one, which this one deliberately
 * has not: nothing flushes synchronously, at exit or ever. Lines still queued when the process exits are lost,
 * which `drain()` makes rare on a normal stop.
 */
export interface LogDestination {
  /** Queues one line (pino's `stream.write`); drops it when the stream is broken or too far behind. */
  write(line: string): boolean;
  /** Resolves once the queued lines reached the OS, or after `timeoutMs`: a stop waits a little, never for ever. */
  drain(timeoutMs: number): Promise<void>;
  /** Lines dropped so far (broken stream, or a reader too far behind). */
  readonly dropped: number;
  /** The error that broke the stream, once it did. */
  readonly brokenBy: Error | null;
}

export interface LogDestinationOptions {
  /**
   * Bytes the stream may hold unwritten before new lines are dropped: a reader that stops reading must not make the
   * heap grow without end. Default 4 MiB.
   */
  readonly maxQueuedBytes?: number;
  /** Told once, in words, when the stream breaks (the server says so on stderr, if that still works). */
  readonly onBroken?: (error: Error) => void;
  /** For the note written when dropping stops; pino's `time` field. */
  readonly now?: () => number;
}

type LogStream = Pick<Writable, 'write' | 'on' | 'once' | 'off' | 'writableLength' | 'destroyed'>;

/**
 * Wraps a stream (process.stdout in the server) as a pino destination that never blocks and never spins.
 *
 * @example const log = pino({ level: 'info' }, createLogDestination(process.stdout));
 */
export function createLogDestination(stream: LogStream, options: LogDestinationOptions = {}): LogDestination {
  const maxQueuedBytes = options.maxQueuedBytes ?? 4 * 1024 * 1024;
  const now = options.now ?? (() => Date.now());
  let brokenBy: Error | null = null;
  let dropped = 0;
  let droppedSinceNote = 0;

  const breakWith = (error: Error) => {
    if (brokenBy) return;
    brokenBy = error;
    options.onBroken?.(error);
  };
  // A write error (EPIPE, EBADF, ...) arrives as an 'error' event; without a listener it would crash the server.
  stream.on('error', breakWith);

  const send = (line: string) => {
    try {
      stream.write(line);
    } catch (error) {
      // A file destination (fs.SyncWriteStream) throws synchronously, ENOSPC say.
      breakWith(error instanceof Error ? error : new Error(String(error)));
    }
  };

  return {
    write(line) {
      if (brokenBy || stream.destroyed) {
        dropped += 1;
        return true;
      }
      if (stream.writableLength >= maxQueuedBytes) {
        dropped += 1;
        droppedSinceNote += 1;
        return true;
      }
      if (droppedSinceNote > 0) {
        // Whoever reads the log should know lines are missing, and how many.
        const note = {
          level: 40,
          time: now(),
          msg: `${droppedSinceNote} log lines dropped: the log reader fell behind`,
        };
        droppedSinceNote = 0;
        send(`${JSON.stringify(note)}\n`);
      }
      send(line);
      return true;
    },
    drain(timeoutMs) {
      if (brokenBy || stream.destroyed || stream.writableLength === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          stream.off('drain', done);
          stream.off('error', done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        timer.unref();
        stream.once('drain', done);
        stream.once('error', done);
      });
    },
    get dropped() {
      return dropped;
    },
    get brokenBy() {
      return brokenBy;
    },
  };
}

let processDestination: LogDestination | null = null;

/**
 * The process's log destination: stdout, through {@link createLogDestination}. One per process, since stdout is;
 * it also keeps a broken stderr from crashing the server (a write error there is an 'error' event too).
 *
 * @example Fastify({ logger: { level: 'info', stream: stdoutLogDestination() } });
 */
export function stdoutLogDestination(): LogDestination {
  if (processDestination) return processDestination;
  let stderrBroken = false;
  process.stderr.on('error', () => (stderrBroken = true));
  processDestination = createLogDestination(process.stdout, {
    onBroken: (error) => {
      if (stderrBroken) return;
      const code = (error as NodeJS.ErrnoException).code ?? error.message;
      try {
        process.stderr.write(`GoDB: the log output (stdout) failed with ${code}; the server keeps running unlogged\n`);
      } catch {
        // stderr is gone as well: nobody is left to tell.
      }
    },
  });
  return processDestination;
}
