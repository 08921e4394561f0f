import { createError } from '@godb/contract';
import type { Worker } from 'node:worker_threads';
import { startWorker } from './worker-script.js';
import type { BatchEmbedding } from './use-lite-runtime.js';
import type { WorkerReply, WorkerRequest } from './worker-protocol.js';

export interface WorkerPoolOptions {
  /** The worker module beside this one (it answers {@link WorkerRequest}s), e.g. `use-lite-worker`. */
  readonly script: string;
  readonly size: number;
  /** Requests allowed to wait for a worker before EMBEDDING_QUEUE_FULL. */
  readonly queueLimit: number;
  /** Texts sent to a worker at once (16–32 suits the encoder). */
  readonly batchSize: number;
  readonly dimensions: number;
  readonly modelName: string;
  /** Given to each worker as `workerData`. */
  readonly workerData?: Record<string, unknown>;
}

interface Request {
  undispatched: number;
  readonly chunks: Chunk[];
}

interface Chunk {
  readonly request: Request;
  readonly texts: readonly string[];
  resolve(result: BatchEmbedding): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  inFlight: Chunk[] | null;
}

/**
 * A pool of worker threads running one embedding model. Requests are split into chunks of at most `batchSize`
 * texts; small requests that wait together are sent to a worker in one batch. Workers start on first use.
 */
export class WorkerPool {
  readonly #options: WorkerPoolOptions;
  readonly #slots: Slot[] = [];
  readonly #queue: Chunk[] = [];
  #waitingRequests = 0;
  #nextId = 1;
  #loadError: string | null = null;
  #closed = false;

  constructor(options: WorkerPoolOptions) {
    this.#options = options;
  }

  /**
   * Embeds texts in order; one request however many texts. When `signal` aborts, the request's chunks still
   * waiting leave the queue and the call rejects with the signal's reason (a batch already on a worker finishes,
   * its answer unused): a caller that has gone does not keep the workers busy.
   */
  async embed(texts: readonly string[], signal?: AbortSignal): Promise<BatchEmbedding> {
    signal?.throwIfAborted();
    if (texts.length === 0) return { vectors: new Float32Array(0), tokenCounts: [] };
    if (this.#loadError)
      throw createError('MODEL_LOAD_FAILED', { model: this.#options.modelName, reason: this.#loadError });
    if (this.#waitingRequests >= this.#options.queueLimit) {
      throw createError('EMBEDDING_QUEUE_FULL', { limit: this.#options.queueLimit, model: this.#options.modelName });
    }
    this.#start();
    const request: Request = { undispatched: 0, chunks: [] };
    const parts: Promise<BatchEmbedding>[] = [];
    for (let i = 0; i < texts.length; i += this.#options.batchSize) {
      const slice = texts.slice(i, i + this.#options.batchSize);
      request.undispatched += 1;
      parts.push(
        new Promise((resolve, reject) => {
          const chunk: Chunk = { request, texts: slice, resolve, reject };
          request.chunks.push(chunk);
          this.#queue.push(chunk);
        }),
      );
    }
    this.#waitingRequests += 1;
    const cancel = () => this.#cancel(request, signal?.reason);
    signal?.addEventListener('abort', cancel, { once: true });
    this.#dispatch();
    let results: BatchEmbedding[];
    try {
      results = await Promise.all(parts);
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
    const vectors = new Float32Array(texts.length * this.#options.dimensions);
    let offset = 0;
    for (const part of results) {
      vectors.set(part.vectors, offset);
      offset += part.vectors.length;
    }
    return { vectors, tokenCounts: results.flatMap((r) => r.tokenCounts) };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#failQueue(
      createError('MODEL_LOAD_FAILED', { model: this.#options.modelName, reason: 'the server is shutting down' }),
    );
    await Promise.all(this.#slots.map((slot) => stop(slot.worker)));
    this.#slots.length = 0;
  }

  #start(): void {
    while (this.#slots.length < this.#options.size && !this.#closed) this.#spawn();
  }

  #spawn(): void {
    const worker = startWorker(
      this.#options.script,
      this.#options.workerData ? { workerData: this.#options.workerData } : {},
    );
    const slot: Slot = { worker, ready: false, inFlight: null };
    this.#slots.push(slot);
    worker.on('message', (reply: WorkerReply) => this.#onReply(slot, reply));
    worker.on('error', (error) => this.#onCrash(slot, error.message));
    worker.on('exit', (code) => {
      if (!this.#closed && code !== 0) this.#onCrash(slot, `worker exited with code ${code}`);
    });
    this.#holdOpen(); // after the listeners: adding a 'message' listener refs the worker again
  }

  #onReply(slot: Slot, reply: WorkerReply): void {
    switch (reply.type) {
      case 'ready':
        slot.ready = true;
        break;
      case 'load-error':
        this.#loadError = reply.message;
        this.#failQueue(createError('MODEL_LOAD_FAILED', { model: this.#options.modelName, reason: reply.message }));
        break;
      case 'result': {
        const chunks = slot.inFlight ?? [];
        slot.inFlight = null;
        let row = 0;
        const d = this.#options.dimensions;
        for (const chunk of chunks) {
          const n = chunk.texts.length;
          chunk.resolve({
            vectors: reply.vectors.slice(row * d, (row + n) * d),
            tokenCounts: reply.tokenCounts.slice(row, row + n),
          });
          row += n;
        }
        break;
      }
      case 'error': {
        const chunks = slot.inFlight ?? [];
        slot.inFlight = null;
        const error = createError('MODEL_LOAD_FAILED', { model: this.#options.modelName, reason: reply.message });
        for (const chunk of chunks) chunk.reject(error);
        break;
      }
    }
    this.#dispatch();
  }

  #onCrash(slot: Slot, reason: string): void {
    const index = this.#slots.indexOf(slot);
    if (index < 0) return;
    this.#slots.splice(index, 1);
    if (!slot.ready) {
      // It never loaded: respawning would fail the same way, so fail everything waiting instead.
      this.#loadError = reason;
      this.#failQueue(createError('MODEL_LOAD_FAILED', { model: this.#options.modelName, reason }));
      return;
    }
    const failure = createError('MODEL_LOAD_FAILED', { model: this.#options.modelName, reason });
    for (const chunk of slot.inFlight ?? []) chunk.reject(failure);
    if (!this.#closed && !this.#loadError) {
      this.#spawn();
      this.#dispatch();
    }
  }

  /**
   * Workers keep the process alive only while they have work: a batch in flight, or requests waiting (for a worker
   * to load, say), or while the pool closes (it waits for them to exit). An idle pool lets a process that never
   * closes it exit.
   */
  #holdOpen(): void {
    const busy = this.#queue.length > 0 || this.#closed;
    for (const slot of this.#slots) {
      if (slot.inFlight || busy) slot.worker.ref();
      else slot.worker.unref();
    }
  }

  #dispatch(): void {
    for (const slot of this.#slots) {
      if (!slot.ready || slot.inFlight || this.#queue.length === 0) continue;
      const batch: Chunk[] = [];
      let size = 0;
      while (this.#queue.length > 0 && size + this.#queue[0]!.texts.length <= this.#options.batchSize) {
        const chunk = this.#queue.shift()!;
        batch.push(chunk);
        size += chunk.texts.length;
        chunk.request.undispatched -= 1;
        if (chunk.request.undispatched === 0) this.#waitingRequests -= 1;
      }
      slot.inFlight = batch;
      const message: WorkerRequest = { id: this.#nextId++, texts: batch.flatMap((c) => c.texts) };
      slot.worker.postMessage(message);
    }
    this.#holdOpen();
  }

  /** Drops a request's waiting chunks and rejects all of its parts (an answer for one already dispatched is unused). */
  #cancel(request: Request, reason: unknown): void {
    for (let i = this.#queue.length - 1; i >= 0; i -= 1) {
      if (this.#queue[i]!.request === request) this.#queue.splice(i, 1);
    }
    if (request.undispatched > 0) {
      request.undispatched = 0;
      this.#waitingRequests -= 1;
    }
    for (const chunk of request.chunks) chunk.reject(reason);
    this.#holdOpen();
  }

  #failQueue(error: unknown): void {
    for (const chunk of this.#queue.splice(0)) chunk.reject(error);
    this.#waitingRequests = 0;
    this.#holdOpen();
  }
}

/**
 * Asks a worker to finish its batch and exit, and waits for it. Not terminate(): terminating a thread inside a
 * native call (an onnxruntime run) aborts the whole process.
 */
function stop(worker: Worker): Promise<void> {
  if (worker.threadId === -1) return Promise.resolve(); // already exited
  return new Promise((resolve) => {
    worker.once('exit', () => resolve());
    worker.ref(); // the pool's workers do not hold the process open, except while it waits for them to stop
    worker.postMessage({ close: true } satisfies WorkerRequest);
  });
}
