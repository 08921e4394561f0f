// Runs a TypeScript worker entry under tsx when the server runs from source (tests, `npm run dev:server`):
// worker threads do not inherit the parent's --import hooks on Node 20. The compiled server never uses this.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.__entry);
