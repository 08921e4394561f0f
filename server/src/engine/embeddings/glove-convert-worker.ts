// Worker thread entry: converts the GloVe JSON without blocking the server's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { convertWinkJson } from './glove-convert.js';

const { source, target } = workerData as { source: string; target: string };
try {
  convertWinkJson(source, target);
  parentPort?.postMessage({ ok: true });
} catch (error) {
  parentPort?.postMessage({ ok: false, message: String(error) });
}
