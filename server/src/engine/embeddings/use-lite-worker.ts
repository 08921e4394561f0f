// Worker thread entry: loads Universal Sentence Encoder Lite once, on the runtime it is given, then answers batches.
import { parentPort, workerData } from 'node:worker_threads';
import { loadUseLite, type UseLiteRuntime } from './use-lite-runtime.js';
import type { WorkerReply, WorkerRequest } from './worker-protocol.js';

const port = parentPort;
if (!port) throw new TypeError('use-lite-worker must run in a worker thread');
const { runtime } = workerData as { runtime: UseLiteRuntime };

loadUseLite(runtime).then(
  (model) => {
    port.postMessage({ type: 'ready' } satisfies WorkerReply);
    port.on('message', (request: WorkerRequest) => {
      model.embedBatch(request.texts).then(
        ({ vectors, tokenCounts }) =>
          port.postMessage({ type: 'result', id: request.id, vectors, tokenCounts } satisfies WorkerReply, [
            vectors.buffer as ArrayBuffer,
          ]),
        (error: unknown) =>
          port.postMessage({ type: 'error', id: request.id, message: String(error) } satisfies WorkerReply),
      );
    });
  },
  (error: unknown) => port.postMessage({ type: 'load-error', message: String(error) } satisfies WorkerReply),
);
