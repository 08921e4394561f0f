import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { inReadTransaction, openReadOnly } from '../../storage/database.js';
import { SpaceVectors } from '../../vectors/space-vectors.js';
import { TextIndex } from '../../text/text-index.js';
import { SearchCore } from '../search-core.js';
import { clientVectorAnswer, modelVectorAnswer } from '../vector-answer.js';
import type { SearchReply, SearchTask, SearchWorkerData } from './pool-protocol.js';
import { ViewedIndexes } from './viewed-indexes.js';

// A search worker (see search-pool.ts): its own read-only connection to the store, its own mapped views of the
// indexes, and the same search code as the main thread, so a query's whole answer (candidates, rescoring, rows, the
// access rule, the result view) is made here, off the thread that parses HTTP.

const { dbFile } = workerData as SearchWorkerData;
const db = openReadOnly(dbFile);
const viewed = new ViewedIndexes();
const core = new SearchCore(db, new TextIndex(db), viewed);
let settings: SearchTask['settings'] | undefined;
const store = new SpaceVectors(db, () => settings!);

async function run(task: SearchTask): Promise<SearchReply> {
  const started = performance.now();
  const tenantId = task.scope.viewer.tenantId;
  settings = task.settings;
  // One read transaction for the whole search: every row it reads is of one committed state. That state is the
  // view's when the space's generation (bumped by every write of its vectors) is the one the main thread's graph
  // reflected at dispatch; a write committed since then makes the answer the main thread's to give.
  return inReadTransaction(db, async (): Promise<SearchReply> => {
    if (store.generation(tenantId, task.space) !== task.view.generation) return { id: task.id, stale: true };
    viewed.use(tenantId, task.space, task.view, task.settings);
    const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
    const answer =
      task.kind === 'client-vector'
        ? await clientVectorAnswer(core, task.scope, task.target, task.request, elapsed)
        : await modelVectorAnswer(core, task.scope, task.request, task.given, elapsed);
    return { id: task.id, answer };
  });
}

parentPort!.on('message', (task: SearchTask) => {
  run(task).then(
    (reply) => parentPort!.postMessage(reply),
    (error: unknown) =>
      parentPort!.postMessage({ id: task.id, failed: error instanceof Error ? error.message : String(error) }),
  );
});
