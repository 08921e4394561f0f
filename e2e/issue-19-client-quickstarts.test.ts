import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { langchainQuickstart, typescriptQuickstart } from '../web/src/features/docs/sections/client-quickstarts.js';
import { signUp } from './support/accounts.js';
import { repoRoot, startServerProcess, type ServerProcess } from './support/server-process.js';

// Issue #19: the Client Libraries section's quickstarts work when pasted. The strings the page shows are written to
// .mts files and run as a reader would (tsx, the packages' built dist, not their sources), against a fresh server,
// after type-checking them against the packages' .d.ts.

let server: ServerProcess;
let dir: string;
let env: Record<string, string>;

before(async () => {
  server = await startServerProcess({ RATE_LIMIT_RPS: '1000', RATE_LIMIT_BURST: '1000' });
  const token = await signUp(server.baseUrl, `reader-${randomUUID()}@example.com`, 'correct horse battery');
  const created = await fetch(`${server.baseUrl}/auth/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'quickstart' }),
  });
  assert.equal(created.status, 201, await created.clone().text());
  env = { GODB_URL: server.baseUrl, GODB_API_KEY: ((await created.json()) as { key: string }).key };
  // Inside the repository's node_modules, so '@godb/client' resolves as it does for an installed package.
  dir = mkdtempSync(join(repoRoot, 'node_modules', '.quickstart-'));
});
after(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function write(name: string, source: string): string {
  const file = join(dir, name);
  writeFileSync(file, source);
  return file;
}

function typeCheck(file: string): void {
  const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const options = ['--noEmit', '--strict', '--skipLibCheck', '--target', 'es2023', '--module', 'nodenext'];
  const result = spawnSync(process.execPath, [tsc, ...options, '--types', 'node', '--lib', 'es2023,dom', file], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, `${file} does not type-check:\n${result.stdout}${result.stderr}`);
}

function run(file: string): string {
  const result = spawnSync(process.execPath, ['--import', 'tsx', file], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, `${file} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

test('issue 19: the TypeScript quickstart type-checks and runs as pasted, twice', () => {
  const file = write('typescript-quickstart.mts', typescriptQuickstart);
  typeCheck(file);
  const output = run(file);
  assert.match(output, /nearest: red-shoe/);
  assert.match(output, /imported: 1000 written, 0 failed/);
  assert.match(output, /error: NOT_FOUND 404 \S+/);
  // Pasted again, the collection exists already: the quickstart says how to take that.
  assert.match(run(file), /nearest: red-shoe/);
});

test('issue 19: the LangChain quickstart type-checks and runs as pasted', () => {
  const file = write('langchain-quickstart.mts', langchainQuickstart);
  typeCheck(file);
  const output = run(file);
  assert.match(output, /best: Hybrid search fuses BM25 and vector scores/);
  assert.match(output, /recent: 1/);
  assert.match(output, /diverse: 2 retrieved: 1/);
});
