import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { documentationSlugs } from '@godb/contract';
import { startTestServer, type TestServer } from '../../test-support/server.js';

let server: TestServer;
let dist: string;
before(async () => {
  dist = mkdtempSync(join(tmpdir(), 'godb-web-'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>GoDB</title><div id="root"></div>');
  server = await startTestServer({ WEB_DIST: dist });
});
after(async () => {
  await server.close();
  rmSync(dist, { recursive: true, force: true });
});

test('every documentation section answers the app with 200', async () => {
  for (const slug of documentationSlugs) {
    const res = await server.app.inject({ url: `/documentation/${slug}` });
    assert.equal(res.statusCode, 200, slug);
    assert.match(res.body, /<div id="root">/);
  }
  assert.equal((await server.app.inject({ url: '/documentation/core-features/' })).statusCode, 200);
});

test('an unknown documentation section answers the app (its error page) with 404', async () => {
  for (const url of ['/documentation/no-such-section', '/documentation/API-Reference', '/documentation/intro/more']) {
    const res = await server.app.inject({ url });
    assert.equal(res.statusCode, 404, url);
    assert.match(res.body, /<div id="root">/, 'the app renders its error page');
  }
});
