// Worker thread entry: loads Universal Sentence Encoder Lite once, on the runtime it is given, then answers batches
// one at a time. On `close` it finishes the batch in progress and releases the model before exiting: a thread
// terminated inside an onnxruntime call aborts the whole process.
import { parentPort, workerData } from 'node:worker_threads';
import { loadUseLite, type UseLiteRuntime } from './use-lite-runtime.js';
import type { WorkerReply, WorkerRequest } from './worker-protocol.js';

const port = parentPort;
if (!port) throw new TypeError('use-lite-worker must run in a worker thread');
const { runtime } = workerData as { runtime: UseLiteRuntime };

const model = loadUseLite(runtime);
model.then(
  () => port.postMessage({ type: 'ready' } satisfies WorkerReply),
  (error: unknown) => port.postMessage({ type: 'load-error', message: String(error) } satisfies WorkerReply),
);
let current: Promise<unknown> = model.catch(() => undefined);

port.on('message', (request: WorkerRequest) => {
  if ('close' in request) {
    void current
      .then(() => model)
      .then((m) => m.close())
      .catch(() => undefined)
      .finally(() => process.exit(0));
    return;
  }
  current = model
    .then((m) => m.embedBatch(request.texts))
    .then(
      ({ vectors, tokenCounts }) =>
        port.postMessage({ type: 'result', id: request.id, vectors, tokenCounts } satisfies WorkerReply, [
          vectors.buffer as ArrayBuffer,
        ]),
      (error: unknown) =>
        port.postMessage({ type: 'error', id: request.id, message: String(error) } satisfies WorkerReply),
    );
});
