import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestEngine } from '../../test-support/engine.js';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { clusteredVectors } from '../../test-support/vectors.js';
import type { Scope } from './scope.js';

// Issue #39, the access rule as one more predicate: a viewer who may read a part of a collection (here 20 %) has
// HNSW candidates checked against a kept set of the documents they may read, and finds what brute force over those
// finds. The set follows the store: a document shared since (a new document, or an ACL change) is found, one no
// longer shared is not.
const tenantId = '00000000-0000-4000-8000-0000000000fa';
const owner = { tenantId, userId: 'owner', groups: [] as string[] };
const reader = { tenantId, userId: 'reader', groups: [] as string[] };
const dims = 16;
const n = 5000;
const k = 10;

const vectorNear = clusteredVectors(seededRandom(41), dims);
const vectors = Array.from({ length: n }, vectorNear);
const shared = (i: number) => i % 5 === 0; // 20 %: past the few scanned exactly (707 here), below a quarter
const isPublic = (i: number) => i % 500 === 7;
const readable = (i: number) => shared(i) || isPublic(i);
const dot = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

const doc = (id: string, vector: number[], share: boolean, visible = false) => ({
  id,
  title: id,
  primary_table: 'c',
  vector,
  visibility: visible ? ('public' as const) : ('private' as const),
  ...(share && { acl: [{ user_id: 'reader', role: 'view' as const }] }),
});

test('a viewer reading a part of a collection: candidates checked against the readable set (issue #39)', async () => {
  const engine = openTestEngine(':memory:', 'use-lite-512');
  try {
    await engine.log.submit({
      kind: 'create-collection',
      tenantId,
      body: { name: 'c', vectors: { v: { dimensions: dims, distance: 'cosine', storage: 'f16' } } },
    });
    for (let from = 0; from < n; from += 500) {
      const docs = vectors
        .slice(from, from + 500)
        .map((vector, j) => doc(`d${from + j}`, vector, shared(from + j), isPublic(from + j)));
      await engine.add(owner, docs, (i) => `body[${i}]`);
    }
    while (engine.vectors.lag() > 0) await new Promise((resolve) => setImmediate(resolve));
    const search = (viewer: typeof owner, vector: number[]) =>
      engine.searches.vector({ viewer, now: 0, table: 'c' } satisfies Scope, {
        vector,
        method: 'cosine',
        threshold: 0,
        limit: k,
        combineLocation: false,
        explain: true,
      });
    let found = 0;
    let wanted = 0;
    const plans = new Set<string>();
    for (let q = 0; q < 30; q += 1) {
      const query = vectorNear();
      const truth = vectors
        .map((v, i) => ({ i, s: dot(v, query) }))
        .filter(({ i }) => readable(i))
        .sort((a, b) => b.s - a.s)
        .slice(0, k)
        .map(({ i }) => `d${i}`);
      const answer = await search(reader, query);
      plans.add(`${answer.plan?.filter}/${answer.plan?.path}`);
      const ids = answer.results.map((r) => r.document_id);
      assert.ok(
        ids.every((id) => readable(Number(id.slice(1)))),
        `only readable documents: ${ids.join(', ')}`,
      );
      found += truth.filter((id) => ids.includes(id)).length;
      wanted += truth.length;
    }
    assert.ok(found / wanted >= 0.98, `recall@10 ${found / wanted}`);
    assert.deepEqual([...plans], ['access/hnsw']);
    // The owner reads everything: no set.
    assert.equal((await search(owner, vectorNear())).plan?.filter, 'none');

    // A document shared since the set was kept is found (the rows written since are read); unshared, it is not.
    const target = vectorNear();
    await engine.add(owner, [doc('late', target, true)], (i) => `body[${i}]`);
    while (engine.vectors.lag() > 0) await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await search(reader, target)).results[0]?.document_id, 'late');
    await engine.add(owner, [doc('late', target, false)], (i) => `body[${i}]`);
    while (engine.vectors.lag() > 0) await new Promise((resolve) => setImmediate(resolve));
    const after = await search(reader, target);
    assert.ok(!after.results.some((r) => r.document_id === 'late'), JSON.stringify(after.results.slice(0, 3)));
    assert.equal(after.plan?.filter, 'access');
    // Shared again by an ACL change alone (no new version of the document): found again.
    engine.documents.access.updateAcl(owner, 'late', 'add', [{ user_id: 'reader', role: 'view' }]);
    assert.equal((await search(reader, target)).results[0]?.document_id, 'late');
    engine.documents.access.updateAcl(owner, 'late', 'remove', [{ user_id: 'reader' }]);
    assert.notEqual((await search(reader, target)).results[0]?.document_id, 'late');
  } finally {
    await engine.close();
  }
});
