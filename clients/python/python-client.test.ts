import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, superAdmin, type TestServer } from '../../server/src/test-support/server.js';
import { pythonQuickstart } from '../../web/src/features/docs/sections/python-quickstart.js';
import { runPython } from './run-python.js';

// Issue #19: the Python client (clients/python) against real GoDB servers on real ports, with Debian's python3.
// Its own suite (tests/) covers auth and API keys, collections with client vectors, documents, search with
// filters, count and scroll, file and snapshot downloads, error mapping, NDJSON import with progress, and retries
// on 429 against a second server whose rate limit is one request per second.

let server: TestServer;
let limited: TestServer;
const urlOf = (s: TestServer) => {
  const address = s.app.server.address();
  assert.ok(address && typeof address === 'object');
  return `http://127.0.0.1:${address.port}`;
};

before(async () => {
  server = await startTestServer();
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  limited = await startTestServer({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '2' });
  await limited.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await server.close();
  await limited.close();
});

test('the Python client suite passes against the real server, none of its tests skipped', async () => {
  const run = await runPython(['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'], {
    GODB_URL: urlOf(server),
    GODB_LIMITED_URL: urlOf(limited),
    GODB_SUPERADMIN_EMAIL: superAdmin.email,
    GODB_SUPERADMIN_PASSWORD: superAdmin.password,
  });
  assert.equal(run.code, 0, run.stderr);
  const ran = /^Ran (\d+) tests? in /m.exec(run.stderr);
  assert.ok(ran && Number(ran[1]) >= 18, run.stderr);
  assert.match(run.stderr, /^OK$/m);
  assert.doesNotMatch(run.stderr, /skipped/);
});

test('the documentation quickstart runs as pasted, and again (it tolerates what the first run created)', async () => {
  for (let round = 1; round <= 2; round += 1) {
    const run = await runPython(['-'], { GODB_URL: urlOf(server), PYTHONPATH: '.' }, pythonQuickstart);
    assert.equal(run.code, 0, `round ${round}: ${run.stderr}`);
    assert.match(run.stdout, /^100 imported, 0 failed$/m);
    assert.match(run.stdout, /^sent 100 written 100$/m);
    const hits = run.stdout.split('\n').filter((line) => /^\S+ [\d.]+ /.test(line) && !line.startsWith('sent'));
    assert.deepEqual(
      hits.map((line) => line.split(' ')[0]),
      ['red-shoe'],
      run.stdout,
    );
    assert.match(run.stdout, /^404 NOT_FOUND [0-9a-f-]{36}$/m);
  }
});
