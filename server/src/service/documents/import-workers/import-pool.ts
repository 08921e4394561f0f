import { Worker } from 'node:worker_threads';
import { createError } from '@godb/contract';
import type { Line } from './line-preparation.js';
import type { SliceReply, SliceRequest } from './protocol.js';

const fromSource = import.meta.url.endsWith('.ts');

/** The worker entry beside this module: the compiled `.js`, or the `.ts` source through tsx (tests, dev). */
function startWorker(): Worker {
  if (!fromSource) return new Worker(new URL('./import-worker.js', import.meta.url));
  return new Worker(new URL('./ts-worker-bootstrap.mjs', import.meta.url), {
    workerData: { __entry: new URL('./import-worker.ts', import.meta.url).href },
  });
}

interface Pending {
  readonly firstLine: number;
  resolve(reply: SliceReply): void;
  reject(error: unknown): void;
}

interface Slot {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
}

/**
 * Worker threads that prepare NDJSON import lines (see prepareLineAlone), so the server thread only resolves and
 * writes them. Slices go round-robin; each worker answers its slices in order. A worker that exits fails its
 * slices with IMPORT_WORKER_FAILED and is replaced on the next slice. Workers start on first use.
 *
 * @example const pool = new ImportPool(2); const reply = await pool.prepare(lines, viewer.userId); await pool.close();
 */
export class ImportPool {
  readonly size: number;
  readonly #slots: (Slot | null)[];
  #next = 0;
  #nextId = 1;
  #closed = false;
  readonly #underway = new Set<Promise<unknown>>();

  constructor(size: number) {
    this.size = size;
    this.#slots = Array.from({ length: size }, () => null);
  }

  /** Prepares a slice of lines on a worker; rejects with IMPORT_WORKER_FAILED if that worker stops first. */
  prepare(lines: readonly Line[], ownerId: string): Promise<SliceReply> {
    if (this.#closed) return Promise.reject(createError('SHUTTING_DOWN', { reason: 'the import workers stopped' }));
    const index = this.#next;
    this.#next = (this.#next + 1) % this.size;
    const slot = this.#slots[index] ?? this.#start(index);
    const request: SliceRequest = { id: this.#nextId++, ownerId, lines };
    const reply = new Promise<SliceReply>((resolve, reject) => {
      slot.pending.set(request.id, { firstLine: lines[0]?.number ?? 0, resolve, reject });
      // A worker with slices to answer keeps the process alive; an idle one does not.
      if (slot.pending.size === 1) slot.worker.ref();
      slot.worker.postMessage(request);
    });
    const settled: Promise<boolean> = reply.then(
      () => this.#underway.delete(settled),
      () => this.#underway.delete(settled),
    );
    this.#underway.add(settled);
    return reply;
  }

  /** Waits for the slices under way, then stops the workers; later slices are refused (SHUTTING_DOWN). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#underway]);
    await Promise.all(this.#slots.map((slot) => slot?.worker.terminate()));
  }

  #start(index: number): Slot {
    const worker = startWorker();
    const slot: Slot = { worker, pending: new Map() };
    this.#slots[index] = slot;
    worker.on('message', (reply: SliceReply) => {
      const pending = slot.pending.get(reply.id);
      slot.pending.delete(reply.id);
      if (slot.pending.size === 0) worker.unref();
      pending?.resolve(reply);
    });
    const fail = (reason: string) => {
      if (this.#slots[index] === slot) this.#slots[index] = null;
      for (const p of slot.pending.values())
        p.reject(createError('IMPORT_WORKER_FAILED', { reason, line: p.firstLine }));
      slot.pending.clear();
    };
    worker.on('error', (error) => fail(error.message));
    worker.on('exit', (code) => fail(`exit code ${code}`));
    worker.unref();
    return slot;
  }
}

/**
 * IMPORT_THREADS as a pool size: -1 is one per core beyond the first, none on one or two cores (measured there, a
 * worker with no idle core to run on made imports 0.62–0.92× as fast: decision 0056); 0 is none (lines prepared
 * in-thread).
 */
export function importThreadsOf(setting: number, cores: number): number {
  if (setting >= 0) return setting;
  return cores <= 2 ? 0 : cores - 1;
}
