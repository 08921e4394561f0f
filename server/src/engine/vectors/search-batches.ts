import { availableParallelism } from 'node:os';
import type { BatchMatches, Index, Matches } from 'usearch';
import type { Candidates } from './index-search.js';

/**
 * The smallest index whose concurrent queries are searched together by default. bench:scale on the 2-core machine:
 * at 1,000,000 vectors (~1.4 ms a search) together 435 QPS against 340 one by one; at 100,000 (~0.4 ms) 814 against
 * 923.
 */
export const defaultBatchMinVectors = 250_000;

/** One query waiting for the next flush. */
interface Waiting {
  readonly query: Float32Array;
  readonly resolve: (candidates: Candidates) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Graph searches of concurrent requests, run together. usearch searches one query on the calling thread, so a node
 * serving several vector queries at once uses one core for them, whatever the machine has. With more than one
 * thread, queries that reach the graph in the same turn of the event loop (requests read in the same poll) wait
 * until that turn ends, then the queries of each index and k go to usearch as one matrix searched on up to
 * `threads` threads: the same answers as one by one (each query explores the graph alone), in less wall time when a
 * core is idle. usearch starts its threads for each call, which pays only when a search is long: on an index of
 * fewer than `minVectors` vectors (SEARCH_BATCH_MIN_VECTORS), and with one thread, each query is searched at once on
 * the calling thread (docs/decisions/0019: at 1M vectors together is faster, at 100k slower).
 *
 * @example const nearest = await batches.search(entry.index, query, 10);
 */
export class SearchBatches {
  readonly #threads: number;
  readonly #minVectors: number;
  #waiting = new Map<Index, Map<number, Waiting[]>>();
  #scheduled = false;

  /**
   * `threads`: 1 searches each query at once on the calling thread; 0 one thread per CPU core. `minVectors`: indexes
   * smaller than this search each query at once too.
   */
  constructor(threads = 0, minVectors = defaultBatchMinVectors) {
    this.#threads = threads === 0 ? availableParallelism() : Math.max(1, threads);
    this.#minVectors = minVectors;
  }

  /** The graph's k nearest of `query` (fewer when the index holds fewer), best first, unreachable ones left out. */
  search(index: Index, query: Float32Array, k: number): Promise<Candidates> {
    if (this.#threads === 1 || index.size() < this.#minVectors) {
      try {
        return Promise.resolve(searchAlone(index, query, k));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise<Candidates>((resolve, reject) => {
      let byK = this.#waiting.get(index);
      if (!byK) this.#waiting.set(index, (byK = new Map()));
      const list = byK.get(k);
      if (list) list.push({ query, resolve, reject });
      else byK.set(k, [{ query, resolve, reject }]);
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    const waiting = this.#waiting;
    this.#waiting = new Map();
    this.#scheduled = false;
    for (const [index, byK] of waiting) for (const [k, list] of byK) this.#run(index, k, list);
  }

  #run(index: Index, k: number, list: readonly Waiting[]): void {
    if (list.length > 1) {
      try {
        const dims = index.dimensions();
        const limit = Math.min(k, index.size());
        if (limit > 0 && list.every((one) => one.query.length === dims)) {
          const matrix = new Float32Array(list.length * dims);
          list.forEach((one, i) => matrix.set(one.query, i * dims));
          // One flat matrix of n queries (usearch's typings take a flat array for one query only).
          const batch = index.search(matrix, limit, Math.min(list.length, this.#threads)) as unknown as BatchMatches;
          list.forEach((one, i) => one.resolve(candidatesOf(batch.get(i))));
          return;
        }
      } catch {
        // usearch refused the batch (an index whose memory was reserved for fewer threads, a malformed query):
        // each query is asked alone below, so only a query that fails alone fails.
      }
    }
    for (const one of list) {
      try {
        one.resolve(searchAlone(index, one.query, k));
      } catch (error) {
        one.reject(error);
      }
    }
  }
}

/** One query on the calling thread. */
export function searchAlone(index: Index, query: Float32Array, k: number): Candidates {
  const limit = Math.min(k, index.size());
  return limit > 0 ? candidatesOf(index.search(query, limit, 1)) : { keys: [], distances: [] };
}

/** usearch's matches as numbers, without the slots it could not fill. */
function candidatesOf(matches: Matches): Candidates {
  const keys: number[] = [];
  const distances: number[] = [];
  for (let i = 0; i < matches.keys.length; i += 1) {
    const distance = matches.distances[i]!;
    if (!Number.isFinite(distance)) continue;
    keys.push(Number(matches.keys[i]!));
    distances.push(distance);
  }
  return { keys, distances };
}
