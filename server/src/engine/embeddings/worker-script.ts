import { Worker, type WorkerOptions } from 'node:worker_threads';

const fromSource = import.meta.url.endsWith('.ts');

/**
 * Starts a worker thread from a module beside this one (or beside `base`, another module's URL): the compiled `.js`
 * in production, or the `.ts` source through a tsx bootstrap when running from source.
 */
export function startWorker(name: string, options: WorkerOptions = {}, base: string = import.meta.url): Worker {
  if (!fromSource) return new Worker(new URL(`./${name}.js`, base), options);
  const entry = new URL(`./${name}.ts`, base).href;
  const data = (options.workerData ?? {}) as Record<string, unknown>;
  return new Worker(new URL('./ts-worker-bootstrap.mjs', import.meta.url), {
    ...options,
    workerData: { ...data, __entry: entry },
  });
}
