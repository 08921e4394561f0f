import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../vectors/kmeans.js';
import { decayOf } from './formula.js';
import { fuse, type Scored } from './fusion.js';
import { groupBy } from './group-by.js';
import { mmr } from './mmr.js';

// The pipeline's steps against direct implementations of their formulas on random data (issue #42).

const next = seededRandom(42);

/** Random ranked lists over a shared pool of keys, scores descending. */
function randomLists(count: number, pool: number): Scored[][] {
  return Array.from({ length: count }, () => {
    const keys = [...new Set(Array.from({ length: 5 + Math.floor(next() * 30) }, () => Math.floor(next() * pool)))];
    return keys.map((key) => ({ key, score: next() * 20 - 5 })).sort((a, b) => b.score - a.score);
  });
}

/** Checks a fused list against expected totals: same documents, same scores, best first. */
function assertFused(fused: Scored[], expected: Map<number, number>) {
  assert.deepEqual(new Set(fused.map((x) => x.key)), new Set(expected.keys()));
  for (const x of fused) assert.ok(Math.abs(x.score - expected.get(x.key)!) < 1e-12, `score of ${x.key}`);
  for (let i = 1; i < fused.length; i += 1) assert.ok(fused[i - 1]!.score >= fused[i]!.score);
}

test('rrf is Σ weight / (k + rank) over the lists that hold a document', () => {
  for (let t = 0; t < 50; t += 1) {
    const lists = randomLists(2 + (t % 3), 60);
    const k = [0, 2, 60][t % 3]!;
    const weights = lists.map(() => Math.round(next() * 30) / 10);
    const expected = new Map<number, number>();
    lists.forEach((list, i) =>
      list.forEach((x, rank) => expected.set(x.key, (expected.get(x.key) ?? 0) + weights[i]! / (k + rank + 1))),
    );
    assertFused(fuse(lists, { method: 'rrf', k, weights }), expected);
  }
});

test('dbsf sums each list’s scores normalised by mean ± 3σ, clamped to 0–1', () => {
  for (let t = 0; t < 50; t += 1) {
    const lists = randomLists(2 + (t % 3), 60);
    const expected = new Map<number, number>();
    for (const list of lists) {
      const scores = list.map((x) => x.score);
      const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
      const sd = Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / scores.length);
      for (const x of list) {
        const n = sd === 0 ? 1 : Math.min(1, Math.max(0, (x.score - (mean - 3 * sd)) / (6 * sd)));
        expected.set(x.key, (expected.get(x.key) ?? 0) + n);
      }
    }
    assertFused(fuse(lists, { method: 'dbsf', k: 60, weights: lists.map(() => 1) }), expected);
  }
});

test('weighted fusion sums weight × min-max normalised scores', () => {
  for (let t = 0; t < 30; t += 1) {
    const lists = randomLists(3, 40);
    const weights = [0.2, 0.5, 0.3];
    const expected = new Map<number, number>();
    lists.forEach((list, i) => {
      const max = Math.max(...list.map((x) => x.score));
      const min = Math.min(...list.map((x) => x.score));
      for (const x of list)
        expected.set(
          x.key,
          (expected.get(x.key) ?? 0) + weights[i]! * (max === min ? 1 : (x.score - min) / (max - min)),
        );
    });
    assertFused(fuse(lists, { method: 'weighted', k: 60, weights }), expected);
  }
});

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i]! * b[i]!;
    na += a[i]! ** 2;
    nb += b[i]! ** 2;
  }
  return dot / Math.sqrt(na * nb);
};

/** MMR as its definition reads: each step, argmax over the rest of λ·rel − (1−λ)·max sim to the picks. */
function directMmr(items: { key: number; score: number; vector: Float32Array }[], lambda: number, count: number) {
  const min = Math.min(...items.map((x) => x.score));
  const max = Math.max(...items.map((x) => x.score));
  const rel = (x: { score: number }) => (max === min ? 1 : (x.score - min) / (max - min));
  const picked: typeof items = [];
  const rest = [...items];
  while (picked.length < count && rest.length > 0) {
    let best = 0;
    let bestValue = -Infinity;
    rest.forEach((x, i) => {
      const penalty = picked.length === 0 ? 0 : Math.max(...picked.map((p) => cosine(p.vector, x.vector)));
      const value = lambda * rel(x) - (1 - lambda) * penalty;
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    });
    picked.push(rest.splice(best, 1)[0]!);
  }
  return picked.map((x) => x.key);
}

test('mmr picks what a direct implementation of its definition picks', () => {
  for (let t = 0; t < 40; t += 1) {
    const items = Array.from({ length: 10 + Math.floor(next() * 40) }, (_, key) => ({
      key,
      score: next(),
      vector: Float32Array.from({ length: 6 }, () => next() * 2 - 1),
    })).sort((a, b) => b.score - a.score);
    const lambda = [0, 0.3, 0.5, 0.7, 1][t % 5]!;
    const count = Math.min(items.length, 10);
    assert.deepEqual(mmr(items, lambda, count, cosine), directMmr(items, lambda, count));
  }
  const one = [{ key: 7, score: 1, vector: Float32Array.from([1, 0]) }];
  assert.deepEqual(mmr(one, 0.5, 5, cosine), [7]);
});

test('group_by never splits or repeats a group, keeps the best members and orders groups by their best', () => {
  for (let t = 0; t < 40; t += 1) {
    const keys = Array.from({ length: 80 }, (_, i) => i);
    const values = new Map(keys.map((k) => [k, next() < 0.1 ? undefined : `g${Math.floor(next() * 12)}`]));
    const size = 1 + (t % 4);
    const groups = groupBy(keys, (k) => values.get(k), { size, limit: 50, offset: 0, field: 'metadata.g' });
    const seen = new Set<string>();
    let lastBest = -1;
    for (const g of groups) {
      assert.ok(!seen.has(g.value), `group ${g.value} repeated`);
      seen.add(g.value);
      const members = keys.filter((k) => values.get(k) === g.value);
      assert.deepEqual(g.keys, members.slice(0, size), `group ${g.value} holds its best ${size}`);
      assert.ok(g.keys[0]! > lastBest, 'groups ordered by their best member');
      lastBest = g.keys[0]!;
    }
    assert.deepEqual(seen, new Set([...values.values()].filter((v) => v !== undefined)));
  }
});

test('group_by on a list value needs a mode: each joins every group, first only its first', () => {
  const tags = new Map([
    [1, ['a', 'b']],
    [2, ['b']],
    [3, ['c', 'a']],
  ]);
  const opts = { size: 5, limit: 10, offset: 0, field: 'tags' };
  assert.throws(() => groupBy([1, 2, 3], (k) => tags.get(k), opts), /body\.group_by\.list/);
  assert.deepEqual(
    groupBy([1, 2, 3], (k) => tags.get(k), { ...opts, list: 'each' }).map((g) => [g.value, g.keys]),
    [
      ['a', [1, 3]],
      ['b', [1, 2]],
      ['c', [3]],
    ],
  );
  assert.deepEqual(
    groupBy([1, 2, 3], (k) => tags.get(k), { ...opts, list: 'first' }).map((g) => [g.value, g.keys]),
    [
      ['a', [1]],
      ['b', [2]],
      ['c', [3]],
    ],
  );
});

test('decay functions equal their closed forms and `decay` at the scale', () => {
  for (let t = 0; t < 200; t += 1) {
    const scale = 1 + next() * 100;
    const offset = next() * 10;
    const decay = 0.05 + next() * 0.9;
    const distance = (next() - 0.5) * 400;
    const x = Math.max(0, Math.abs(distance) - offset);
    const sigma2 = -(scale ** 2) / (2 * Math.log(decay));
    assert.ok(
      Math.abs(decayOf('exp', distance, scale, offset, decay) - Math.exp((Math.log(decay) / scale) * x)) < 1e-12,
    );
    assert.ok(Math.abs(decayOf('gauss', distance, scale, offset, decay) - Math.exp(-(x ** 2) / (2 * sigma2))) < 1e-12);
    const s = scale / (1 - decay);
    assert.ok(Math.abs(decayOf('linear', distance, scale, offset, decay) - Math.max(0, (s - x) / s)) < 1e-12);
    for (const fn of ['exp', 'gauss', 'linear'] as const) {
      assert.ok(Math.abs(decayOf(fn, scale + offset, scale, offset, decay) - decay) < 1e-12);
      assert.equal(decayOf(fn, offset * 0.5, scale, offset, decay), 1);
    }
  }
});
