// Worker thread entry: loads the converted GloVe file once, then answers batches. GloVe runs here rather than on
// the main thread so that its 400,000-word vocabulary never enlarges the heap the request path collects.
import { parentPort, workerData } from 'node:worker_threads';
import { GloveModel } from './glove-model.js';
import type { WorkerReply, WorkerRequest } from './worker-protocol.js';

const port = parentPort;
if (!port) throw new TypeError('glove-worker must run in a worker thread');
const { file } = workerData as { file: string };

const model = GloveModel.load(file);
if (!model) {
  port.postMessage({ type: 'load-error', message: `${file} is not a valid GloVe file` } satisfies WorkerReply);
} else {
  port.postMessage({ type: 'ready' } satisfies WorkerReply);
  port.on('message', (request: WorkerRequest) => {
    if ('close' in request) process.exit(0);
    const vectors = new Float32Array(request.texts.length * model.dims);
    const tokenCounts = request.texts.map((text, i) => {
      const embedded = model.embed(text);
      vectors.set(embedded.vector, i * model.dims);
      return embedded.tokenCount;
    });
    port.postMessage({ type: 'result', id: request.id, vectors, tokenCounts } satisfies WorkerReply, [
      vectors.buffer as ArrayBuffer,
    ]);
  });
}
