import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { seededRandom } from './kmeans.js';
import { SearchBatches } from './search-batches.js';

const dims = 64;

/** An index of `count` random vectors, added on `threads` threads (0: usearch's choice, as the engine adds). */
const emptyIndex = () =>
  new Index({
    dimensions: dims,
    metric: MetricKind.Cos,
    quantization: ScalarKind.F32,
    connectivity: 16,
    expansion_add: 128,
    expansion_search: 64,
    multi: false,
  });

function indexOf(count: number, threads = 0): Index {
  const index = emptyIndex();
  const next = seededRandom(7);
  const vectors = Float32Array.from({ length: count * dims }, () => next() - 0.5);
  index.add(
    BigUint64Array.from({ length: count }, (_, i) => BigInt(i)),
    vectors,
    threads,
  );
  return index;
}

const queries = (count: number, seed: number) => {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => Float32Array.from({ length: dims }, () => next() - 0.5));
};

describe('graph searches of concurrent queries, run together', () => {
  it('answers each query of a batch as a search of that query alone would', async () => {
    const index = indexOf(3_000);
    const batches = new SearchBatches(2, 0);
    const asked = queries(12, 11);
    // Asked in one turn of the event loop: one matrix per k, searched on two threads.
    const together = await Promise.all(asked.map((query, i) => batches.search(index, query, i % 2 === 0 ? 10 : 25)));
    asked.forEach((query, i) => {
      const alone = index.search(query, i % 2 === 0 ? 10 : 25, 1);
      assert.deepEqual(together[i]!.keys, Array.from(alone.keys, Number), `query ${i}`);
      assert.deepEqual(together[i]!.distances, Array.from(alone.distances), `query ${i}`);
    });
  });

  it('searches each query at once, on the calling thread, with one thread or below the size that pays', async () => {
    const index = indexOf(500);
    const [query] = queries(1, 9);
    for (const batches of [new SearchBatches(1, 0), new SearchBatches(2, 501)]) {
      const found = await batches.search(index, query!, 7);
      assert.deepEqual(found.keys, Array.from(index.search(query!, 7, 1).keys, Number));
      await assert.rejects(batches.search(index, new Float32Array(dims + 1), 3));
    }
  });

  it('answers a lone query, a k above the index size and an empty index', async () => {
    const index = indexOf(5);
    const batches = new SearchBatches(2, 0);
    const [query] = queries(1, 3);
    assert.equal((await batches.search(index, query!, 10)).keys.length, 5);
    const empty = emptyIndex();
    assert.deepEqual(await batches.search(empty, query!, 10), { keys: [], distances: [] });
  });

  it('fails only the query that fails alone', async () => {
    const index = indexOf(3_000);
    const batches = new SearchBatches(2, 0);
    const [first] = queries(1, 5);
    const [refused, fine] = await Promise.allSettled([
      batches.search(index, new Float32Array(dims + 1), 3),
      batches.search(index, first!, 4),
    ]);
    assert.equal(refused.status, 'rejected');
    assert.equal(fine.status, 'fulfilled');
  });
});
