import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isGoDBError } from '@godb/contract';
import { openTestEngine, type TestEngine } from '../../test-support/engine.js';
import { prepareDocument } from './prepare.js';

// Who may change a document is decided by the service, on the access entries the taking node read
// (Documents.accessFacts); the change carries their stamp. In cluster mode another change can come first in the
// log: applying then refuses the change (ACCESS_CHANGED) instead of executing a decision taken on other entries.
// Applying is what every node does in log order, so calling it here in that order is what each node sees.
const tenantId = '00000000-0000-4000-8000-0000000000d1';
const owner = { tenantId, userId: 'owner', groups: [] as string[] };
const editor = { tenantId, userId: 'editor', groups: [] as string[] };

let engine: TestEngine;
before(() => {
  engine = openTestEngine(':memory:', 'use-lite-512');
});
after(() => engine.close());

async function write(id: string): Promise<void> {
  const doc = prepareDocument(
    {
      id,
      title: id,
      visibility: 'private',
      acl: [{ user_id: 'editor', role: 'edit' }],
      embedding_options: { enabled: false },
    },
    'owner',
    'body',
  );
  await engine.commands.write(owner, [{ ...doc, model: null, chunks: [] }], () => 'body');
}

const accessChanged = (e: unknown) => isGoDBError(e) && e.code === 'ACCESS_CHANGED' && e.status === 409;

test('a visibility change decided before the editor lost its role is refused, and the document stays as it was', async () => {
  await write('v');
  const decided = engine.documents.reads.accessFacts(editor, 'v');
  engine.documents.access.updateAcl(owner, 'v', 'update', [{ user_id: 'editor', role: 'view' }]);
  assert.throws(() => engine.documents.access.setVisibility(editor, 'v', 'public', decided.stamp), accessChanged);
  assert.equal(engine.documents.reads.readable(owner, 'v').visibility, 'private');
  // Decided again, on the entries it has now: the same stamp on the same entries, whatever order they are read in.
  const again = engine.documents.reads.accessFacts(owner, 'v');
  engine.documents.access.setVisibility(owner, 'v', 'public', again.stamp);
  assert.equal(engine.documents.reads.readable(owner, 'v').visibility, 'public');
});

test('an ACL change decided on entries another change replaced is refused; one decided on the current entries applies', async () => {
  await write('a');
  const decided = engine.documents.reads.accessFacts(owner, 'a');
  engine.documents.access.updateAcl(owner, 'a', 'add', [{ user_id: 'carol', role: 'owner' }], decided.stamp);
  assert.throws(
    () => engine.documents.access.updateAcl(owner, 'a', 'remove', [{ user_id: 'editor' }], decided.stamp),
    accessChanged,
  );
  assert.ok(engine.documents.reads.accessFacts(owner, 'a').access.some((e) => e.principal === 'editor'));
  const current = engine.documents.reads.accessFacts(owner, 'a');
  engine.documents.access.updateAcl(owner, 'a', 'remove', [{ user_id: 'editor' }], current.stamp);
  assert.ok(!engine.documents.reads.accessFacts(owner, 'a').access.some((e) => e.principal === 'editor'));
});

test('a write over a document decided before its access changed, or before it existed, is refused and writes nothing', async () => {
  await write('w');
  const decided = engine.documents.reads.overwriteFacts(editor, ['w', 'new']);
  assert.deepEqual([...decided.keys()], ['w'], 'an id with no document has no facts');
  engine.documents.access.updateAcl(owner, 'w', 'update', [{ user_id: 'editor', role: 'view' }]);
  const again = prepareDocument({ id: 'w', title: 'Mine', embedding_options: { enabled: false } }, 'editor', 'body');
  await assert.rejects(
    engine.commands.write(editor, [{ ...again, model: null, chunks: [] }], () => 'body', {
      decidedOn: { w: decided.get('w')!.stamp },
    }),
    accessChanged,
  );
  assert.equal(engine.documents.reads.readable(owner, 'w').version, 1);
  // Decided absent, then written by someone else first: refused too, rather than written over unseen.
  await write('new');
  const late = prepareDocument({ id: 'new', title: 'Mine', embedding_options: { enabled: false } }, 'editor', 'body');
  await assert.rejects(
    engine.commands.write(editor, [{ ...late, model: null, chunks: [] }], () => 'body', { decidedOn: {} }),
    accessChanged,
  );
  // Decided on the current access, it is written.
  const current = engine.documents.reads.overwriteFacts(owner, ['w']).get('w')!.stamp;
  const mine = prepareDocument({ id: 'w', title: 'Owner', embedding_options: { enabled: false } }, 'owner', 'body');
  await engine.commands.write(owner, [{ ...mine, model: null, chunks: [] }], () => 'body', {
    decidedOn: { w: current },
  });
  assert.equal(engine.documents.reads.readable(owner, 'w').version, 2);
});

test('a delete decided before a document it takes changed access is refused and deletes nothing', async () => {
  await write('d');
  const decided = engine.documents.reads.deletion(owner, 'd', { recursive: false, permanent: false });
  assert.deepEqual(
    decided.targets.map((t) => t.id),
    ['d'],
  );
  const decidedOn = Object.fromEntries(decided.targets.map((t) => [t.id, t.stamp]));
  engine.documents.access.updateAcl(owner, 'd', 'add', [{ user_id: 'carol', role: 'owner' }]);
  assert.throws(
    () => engine.documents.deletes.delete(owner, 'd', { recursive: false, permanent: false, decidedOn }),
    accessChanged,
  );
  assert.equal(engine.documents.reads.readable(owner, 'd').id, 'd');
  const current = engine.documents.reads.deletion(owner, 'd', { recursive: false, permanent: false });
  const { value: removed } = engine.documents.deletes.delete(owner, 'd', {
    recursive: false,
    permanent: false,
    decidedOn: Object.fromEntries(current.targets.map((t) => [t.id, t.stamp])),
  });
  assert.equal(removed, 1);
});

test('a delete by filter deletes only what it was decided on: a document whose access changed since is skipped', async () => {
  await write('s1');
  await write('s2');
  const facts = engine.documents.reads.batchDeletion(owner, ['s1', 's2', 'missing']);
  assert.deepEqual(
    facts.targets.map((t) => t.id),
    ['s1', 's2'],
  );
  const decidedOn = Object.fromEntries(facts.targets.map((t) => [t.id, t.stamp]));
  engine.documents.access.updateAcl(owner, 's2', 'add', [{ user_id: 'carol', role: 'view' }]);
  const { value } = engine.documents.deletes.deleteSome(owner, ['s1', 's2'], false, decidedOn);
  assert.deepEqual(value, { deleted: 1, skipped: 1 });
  assert.equal(engine.documents.reads.readable(owner, 's2').id, 's2');
});
