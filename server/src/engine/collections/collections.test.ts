import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { openTestEngine } from '../../test-support/engine.js';

const engine = openTestEngine(':memory:');
after(() => engine.close());
const tenant = '00000000-0000-4000-8000-0000000000c1';

test('a collection read between writes is kept, frozen, and never outlives a write or a rollback', () => {
  const { collections, db } = engine;
  assert.equal(collections.get(tenant, 'papers'), undefined);
  collections.create(tenant, { name: 'papers', vectors: { v: { dimensions: 4 } } }, 1_800_000_000);
  const read = collections.get(tenant, 'papers')!;
  assert.equal(read.vectors.v!.dimensions, 4, 'the miss kept before is not answered after the write');
  assert.ok(Object.isFrozen(read) && Object.isFrozen(read.vectors.v!.hnsw), 'shared answers cannot be changed');
  assert.equal(collections.get(tenant, 'papers'), read, 'kept while the store is unchanged');

  // Written and read inside a transaction that rolls back: nothing of it is kept.
  assert.throws(() =>
    db.transaction(() => {
      collections.create(tenant, { name: 'drafts' }, 1_800_000_001);
      assert.ok(collections.get(tenant, 'drafts'));
      throw new Error('rolled back');
    })(),
  );
  assert.equal(collections.get(tenant, 'drafts'), undefined);

  collections.remove(tenant, 'papers');
  assert.equal(collections.get(tenant, 'papers'), undefined, 'a removal is seen at once');
});
