import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { resolveJwtSecret } from './jwt-secret.js';

const dir = mkdtempSync(join(tmpdir(), 'godb-jwt-secret-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a generated JWT secret is kept (mode 0600) and used again; a configured one wins', () => {
  const first = resolveJwtSecret(dir, '');
  assert.ok(first.length >= 32);
  assert.equal(resolveJwtSecret(dir, ''), first, 'the same secret after a restart');
  assert.equal(statSync(join(dir, 'jwt-secret')).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(dir), ['jwt-secret'], 'no temporary file left');
  assert.equal(resolveJwtSecret(dir, 'x'.repeat(40)), 'x'.repeat(40));
});

test('a kept secret cut short (empty after a crash) is replaced, never signed with', () => {
  writeFileSync(join(dir, 'jwt-secret'), '');
  const next = resolveJwtSecret(dir, '');
  assert.ok(next.length >= 32);
  assert.equal(resolveJwtSecret(dir, ''), next);
  writeFileSync(join(dir, 'jwt-secret'), `${'a'.repeat(31)}\n`);
  assert.notEqual(resolveJwtSecret(dir, ''), 'a'.repeat(31), '31 characters: replaced');
  writeFileSync(join(dir, 'jwt-secret'), `${'b'.repeat(32)}\n`);
  assert.equal(resolveJwtSecret(dir, ''), 'b'.repeat(32), '32: kept');
});
