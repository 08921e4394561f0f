import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { inReadTransaction, openReadOnly } from '../../storage/database.js';
import { SpaceVectors } from '../../vectors/space-vectors.js';
import { SearchCore } from '../search-core.js';
import { hybridAnswer } from '../hybrid-answer.js';
import { textAnswer } from '../text-answer.js';
import { clientVectorAnswer, modelVectorAnswer } from '../vector-answer.js';
import type { SearchReply, SearchTask, SearchWorkerData } from './pool-protocol.js';
import { sameToken, textToken } from './text-token.js';
import { ViewedIndexes } from './viewed-indexes.js';
import { WorkerTextIndexes } from './worker-text-indexes.js';

// A search worker (see search-pool.ts): its own read-only connection to the store, its own mapped views of the
// indexes and BM25 indexes, and the same search code as the main thread, so a query's whole answer (candidates,
// rescoring, rows, the access rule, the result view) is made here, off the thread that parses HTTP.

const { dbFile, textInlineRows } = workerData as SearchWorkerData;
const db = openReadOnly(dbFile);
const viewed = new ViewedIndexes();
const texts = new WorkerTextIndexes(db, textInlineRows);
const core = new SearchCore(db, texts.text, viewed);
let settings: Extract<SearchTask, { settings: unknown }>['settings'] | undefined;
const store = new SpaceVectors(db, () => settings!);

async function run(task: SearchTask): Promise<SearchReply> {
  const started = performance.now();
  const tenantId = task.scope.viewer.tenantId;
  const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
  if (task.kind === 'text') {
    // One read transaction: its state is the main thread's at dispatch when the token is the same (a write
    // committed since makes the answer the main thread's), and the worker's index is made that state first.
    return inReadTransaction(db, async (): Promise<SearchReply> => {
      if (!sameToken(textToken(core.rows), task.token)) return { id: task.id, stale: true };
      if (texts.prepare(tenantId, task.token) === 'build') return { id: task.id, stale: true, building: true };
      return { id: task.id, answer: textAnswer(core, task.scope, task.request, task.analysis, elapsed) };
    });
  }
  settings = task.settings;
  if (task.kind === 'hybrid') {
    // Both sides' conditions in one read transaction: the text index at the dispatched state (when the query has
    // words), and the space's view current (no write to its vectors since).
    return inReadTransaction(db, async (): Promise<SearchReply> => {
      if (task.token) {
        if (!sameToken(textToken(core.rows), task.token)) return { id: task.id, stale: true };
        if (texts.prepare(tenantId, task.token) === 'build') return { id: task.id, stale: true, building: true };
      }
      if (store.generation(tenantId, task.space) !== task.view.generation) return { id: task.id, stale: true };
      viewed.use(tenantId, task.space, task.view, task.settings);
      const query = { ...task.request, ...(task.target && { space: task.target }) };
      return { id: task.id, answer: await hybridAnswer(core, null, task.scope, query, task.shown, elapsed) };
    });
  }
  // One read transaction for the whole search: every row it reads is of one committed state. That state is the
  // view's when the space's generation (bumped by every write of its vectors) is the one the main thread's graph
  // reflected at dispatch; a write committed since then makes the answer the main thread's to give.
  return inReadTransaction(db, async (): Promise<SearchReply> => {
    if (store.generation(tenantId, task.space) !== task.view.generation) return { id: task.id, stale: true };
    viewed.use(tenantId, task.space, task.view, task.settings);
    const answer =
      task.kind === 'client-vector'
        ? await clientVectorAnswer(core, task.scope, task.target, task.request, elapsed)
        : await modelVectorAnswer(core, task.scope, task.request, task.given, elapsed);
    return { id: task.id, answer };
  });
}

/** Builds a tenant's text index whole, in one read transaction, between queries (the pool sends none meanwhile). */
const build = (tenantId: string) =>
  inReadTransaction(db, () => Promise.resolve(texts.build(tenantId, textToken(core.rows))));

parentPort!.on('message', (task: SearchTask) => {
  run(task).then(
    async (reply) => {
      parentPort!.postMessage(reply);
      if (!('building' in reply)) return;
      // On failure nothing is held for the tenant: its next query here builds again, the main thread answering.
      await build(task.scope.viewer.tenantId).catch(() => undefined);
      parentPort!.postMessage({ built: true } satisfies SearchReply);
    },
    (error: unknown) =>
      parentPort!.postMessage({ id: task.id, failed: error instanceof Error ? error.message : String(error) }),
  );
});
