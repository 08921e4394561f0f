import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AccessEntry, Viewer } from '../../engine/documents/types.js';
import {
  mayChangeAcl,
  mayChangeVisibility,
  deletable,
  mayDelete,
  mayOverwrite,
  mayUpdate,
  type Decision,
  type PolicyFacts,
} from './document-policy.js';

const now = 1_000;
const alice: Viewer = { tenantId: 't', userId: 'alice', groups: ['team'] };
const entry = (principal: string, role: AccessEntry['role'], expires_at: number | null = null): AccessEntry => ({
  principal,
  role,
  expires_at,
});
const facts = (...access: AccessEntry[]): PolicyFacts => ({ access, now });

/** The code a caller is answered with, or 'allowed'. */
const outcome = (decision: Decision) => (decision.allowed ? 'allowed' : decision.error.code);

// [case, access entries, change visibility, update, change ACL]
const cases: [string, AccessEntry[], string, string, string][] = [
  ['owner', [entry('alice', 'owner')], 'allowed', 'allowed', 'allowed'],
  ['editor', [entry('bob', 'owner'), entry('alice', 'edit')], 'allowed', 'allowed', 'ACL_OWNER_REQUIRED'],
  ['viewer', [entry('bob', 'owner'), entry('alice', 'view')], 'FORBIDDEN', 'FORBIDDEN', 'ACL_OWNER_REQUIRED'],
  [
    'on the access list',
    [entry('bob', 'owner'), entry('alice', 'list')],
    'FORBIDDEN',
    'FORBIDDEN',
    'ACL_OWNER_REQUIRED',
  ],
  ['no entry (a public document)', [entry('bob', 'owner')], 'FORBIDDEN', 'FORBIDDEN', 'ACL_OWNER_REQUIRED'],
  ['owner through a group', [entry('team', 'owner')], 'allowed', 'allowed', 'allowed'],
  [
    'editor through a group',
    [entry('bob', 'owner'), entry('team', 'edit')],
    'allowed',
    'allowed',
    'ACL_OWNER_REQUIRED',
  ],
  [
    'owner until a time passed',
    [entry('bob', 'owner'), entry('alice', 'owner', now)],
    'FORBIDDEN',
    'FORBIDDEN',
    'ACL_OWNER_REQUIRED',
  ],
  ['owner until a time to come', [entry('alice', 'owner', now + 1)], 'allowed', 'allowed', 'allowed'],
  [
    'expired owner, live editor',
    [entry('alice', 'owner', now - 1), entry('alice', 'edit')],
    'allowed',
    'allowed',
    'ACL_OWNER_REQUIRED',
  ],
  ['another tenant-mate owns it', [entry('alicia', 'owner')], 'FORBIDDEN', 'FORBIDDEN', 'ACL_OWNER_REQUIRED'],
];

for (const [name, access, visibility, update, acl] of cases) {
  test(`document policy: ${name}`, () => {
    assert.deepEqual(
      {
        visibility: outcome(mayChangeVisibility(alice, facts(...access))),
        update: outcome(mayUpdate(alice, facts(...access))),
        acl: outcome(mayChangeAcl(alice, facts(...access))),
      },
      { visibility, update, acl },
    );
  });
}

for (const [name, access, , update, acl] of cases) {
  test(`document policy: ${name} writing over or deleting the document`, () => {
    const over = mayOverwrite(alice, { ...facts(...access), id: 'doc' }, 'body[2].id');
    // Writing over an id needs what an update needs; deleting what an ACL change needs (the owner role).
    assert.equal(outcome(over), update);
    assert.equal(
      outcome(mayDelete(alice, { targets: [{ id: 'doc', access, stamp: '' }], now })),
      acl === 'allowed' ? 'allowed' : 'FORBIDDEN',
    );
  });
}

test('document policy: a write over an id names it and its field; a delete names the first document not owned', () => {
  const over = mayOverwrite(alice, { ...facts(entry('bob', 'owner')), id: 'plan' }, 'body[2].id');
  assert.ok(!over.allowed);
  assert.equal(over.error.field, 'body[2].id');
  assert.match(over.error.message, /document plan exists and you cannot edit it/);
  const owned = { id: 'parent', access: [entry('alice', 'owner')], stamp: '' };
  const child = { id: 'child', access: [entry('bob', 'owner'), entry('alice', 'edit')], stamp: '' };
  const refused = mayDelete(alice, { targets: [owned, child], now });
  assert.ok(!refused.allowed);
  assert.match(refused.error.message, /deleting child needs the owner role on it/);
});

test('document policy: a delete by filter keeps the documents the caller owns and skips the others', () => {
  const target = (id: string, ...access: AccessEntry[]) => ({ id, access, stamp: '' });
  const kept = deletable(alice, {
    targets: [target('mine', entry('alice', 'owner')), target('edited', entry('bob', 'owner'), entry('alice', 'edit'))],
    now,
  });
  assert.deepEqual(
    kept.map((t) => t.id),
    ['mine'],
  );
});

test('document policy: a refusal says what role is missing, as the HTTP and gRPC answers always did', () => {
  const refused = mayChangeVisibility(alice, facts(entry('alice', 'view')));
  assert.ok(!refused.allowed);
  assert.equal(refused.error.status, 403);
  assert.equal(refused.error.grpc, 'PERMISSION_DENIED');
  assert.match(refused.error.message, /changing visibility needs the edit or owner role on the document/);
  const update = mayUpdate(alice, facts());
  assert.ok(!update.allowed);
  assert.match(update.error.message, /updating a document needs the edit or owner role on it/);
});
