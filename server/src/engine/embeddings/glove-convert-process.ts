import { createError } from '@godb/contract';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

const fromSource = import.meta.url.endsWith('.ts');

/** A GloVe conversion running in its own process. */
export interface GloveConversion {
  /** Resolves when the target file is written; rejects (MODEL_LOAD_FAILED) with the reason, or when cancelled. */
  readonly done: Promise<void>;
  /** Kills the converter and removes its partial file; `done` rejects. Resolves once the process has gone. */
  cancel(): Promise<void>;
  /** What it does now (`reading its JSON`, `writing the compact file`), as it last said. */
  readonly phase: string;
}

/**
 * Converts wink's GloVe JSON in a child process, not a worker thread: parsing its 307 MB of JSON is one long
 * native call that a worker cannot be stopped in, and process.exit() waits for every worker thread, so a server
 * stopped during the conversion (the first seconds of a new data folder) took as long to exit as the conversion
 * took to finish (issue #22). A child process is killed at once, and its 1.5 GB of memory goes with it. It runs at the
 * lowest CPU priority (nice 19): requests that do not need it are served first (issue #37: three nodes converting
 * at once on two cores made the first write take 18 s).
 *
 * @example const conversion = startGloveConversion('glove-100', source, target); await conversion.done;
 */
export function startGloveConversion(model: string, source: string, target: string): GloveConversion {
  const entry = fileURLToPath(new URL(`./glove-convert-main.${fromSource ? 'ts' : 'js'}`, import.meta.url));
  const child = spawn(
    process.execPath,
    [...(fromSource ? ['--conditions=source', '--import', import.meta.resolve('tsx')] : []), entry, source, target],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
    if (child.pid !== undefined) setPriority(child.pid, constants.priority.PRIORITY_LOW);
  } catch {
    // Not allowed here (a container without it): it runs at normal priority.
  }
  let phase = 'starting';
  child.stdout.on('data', (chunk: Buffer) => {
    const last = chunk.toString().trim().split('\n').at(-1);
    if (last) phase = last;
  });
  let reason = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (reason.length < 2000) reason += chunk.toString();
  });
  let cancelled = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', (error) => {
      reason ||= error.message;
      resolve(-1);
    });
    child.once('close', (code) => resolve(code));
  });
  const done = exited.then((code) => {
    if (cancelled) throw createError('MODEL_LOAD_FAILED', { model, reason: 'the server is shutting down' });
    if (code !== 0)
      throw createError('MODEL_LOAD_FAILED', { model, reason: reason.trim() || `the converter exited with ${code}` });
  });
  return {
    done,
    get phase() {
      return phase;
    },
    async cancel() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      cancelled = true;
      child.kill('SIGKILL');
      await exited;
      // convertWinkJson writes `${target}.<its pid>.tmp`, then renames it: a killed converter may leave it behind.
      if (child.pid !== undefined) rmSync(`${target}.${child.pid}.tmp`, { force: true });
    },
  };
}
