import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openTestEngine } from '../../test-support/engine.js';
import { SparsePostings } from './sparse-posting-rows.js';
import { sparseTopK } from './sparse-top-k.js';

// Decision 0075: a query's first read of a sparse name's lists builds them a slice per turn of the event loop, so
// other work goes on meanwhile, and writes made during the build are in the lists it answers.

const dir = mkdtempSync(join(tmpdir(), 'godb-sparse-build-'));
const engine = openTestEngine(dir);
after(() => {
  engine.close();
  rmSync(dir, { recursive: true, force: true });
});

test('building the lists lets the event loop turn, and writes during the build are in the lists', async () => {
  const docs = 15_000;
  const insert = engine.db.prepare(
    "INSERT INTO sparse_postings (tenant_id, collection, name, term, doc_seq, value) VALUES ('t', 'c', 's', ?, ?, ?)",
  );
  engine.db.transaction(() => {
    for (let term = 1; term <= 4; term += 1)
      for (let seq = 1; seq <= docs; seq += 1) insert.run(term, seq, ((seq * term) % 97) / 97 + 0.01);
  })();
  const postings = SparsePostings.of(engine.db);
  let turns = 0;
  let stop = false;
  let wrote = false;
  const tick = () => {
    turns += 1;
    if (!wrote) {
      wrote = true;
      // Mid-build: a new version (above every seq posted) and a removal of one whose postings are partly read.
      postings.post('t', 'c', docs + 10, { s: { indices: [1, 3], values: [5, 5] } });
      postings.unpost('t', 5);
    }
    if (!stop) setImmediate(tick);
  };
  const building = postings.ready('t', 'c', 's');
  const alsoWaiting = postings.ready('t', 'c', 's');
  setImmediate(tick);
  const lists = await building;
  stop = true;
  assert.ok(turns > 1, `the event loop turned ${turns} times during the build`);
  assert.equal(await alsoWaiting, lists, 'a second query waits for the same build');
  assert.equal(postings.lists('t', 'c', 's'), lists);
  assert.equal(lists.docs, docs, 'one document removed, one added');
  const best = sparseTopK(lists, { indices: [1, 3], values: [1, 1] }, 3);
  assert.deepEqual(best[0], { seq: docs + 10, score: 10 });
  const all = sparseTopK(lists, { indices: [1, 2, 3, 4], values: [1, 1, 1, 1] }, docs + 10);
  assert.equal(all.length, docs);
  assert.ok(!all.some((r) => r.seq === 5), 'the removed document is not answered');
  // The lists hold every posting SQLite holds (the truth), scored alike.
  const truth = engine.db
    .prepare(
      "SELECT doc_seq, sum(value) FROM sparse_postings WHERE tenant_id = 't' AND term IN (1, 2, 3, 4) GROUP BY doc_seq",
    )
    .raw()
    .all() as [number, number][];
  const bySeq = new Map(all.map((r) => [r.seq, r.score]));
  assert.equal(truth.length, all.length);
  for (const [seq, score] of truth) assert.ok(Math.abs(bySeq.get(seq)! - score) < 1e-5, `score of ${seq}`);
});
