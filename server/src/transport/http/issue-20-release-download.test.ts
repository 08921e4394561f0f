import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { get } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadConfig } from '../../config/env.js';
import { createServer, type GoDBServer } from '../../compose/create-server.js';
import { SmtpPeer } from '../../test-support/smtp-peer.js';

/**
 * Issue #20, item 3: on a default install nobody ran `npm run package`, so the link mailed after a binary request
 * answered 404. The first download now builds the release from the install's built files while it streams it.
 * The install here is a small one (a few files and two dependencies) so the real build runs in a second.
 */

/** Writes `files` (path → content) under `root`. */
function plant(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

const otherOs = process.platform === 'win32' ? 'linux' : 'win32';
const built = {
  'package.json': JSON.stringify({ name: 'godb', version: '0.1.0' }),
  'README.md': '# GoDB\n',
  'server/package.json': JSON.stringify({ dependencies: { '@godb/contract': '0.1.0', 'tiny-dep': '^1.0.0' } }),
  'server/dist/main.js': 'console.log("GoDB");\n',
  'server/dist/main.js.map': '{}',
  'server/src/main.ts': 'sources stay out',
  'contract/package.json': JSON.stringify({ dependencies: {} }),
  'contract/dist/index.js': 'export {};\n',
  'contract/proto/godb.proto': 'syntax = "proto3";\n',
  'web/package.json': JSON.stringify({ name: '@godb/web' }),
  'web/dist/index.html': '<!doctype html><title>GoDB</title>\n',
  'node_modules/tiny-dep/package.json': JSON.stringify({ version: '1.0.0', dependencies: { nested: '2.0.0' } }),
  'node_modules/tiny-dep/index.js': 'module.exports = 1;\n',
  'node_modules/tiny-dep/index.js.map': '{}',
  [`node_modules/tiny-dep/prebuilds/${process.platform}-${process.arch}/tiny.node`]: 'native for this platform',
  [`node_modules/tiny-dep/prebuilds/${otherOs}-${process.arch}/tiny.node`]: 'native for another platform',
  'node_modules/tiny-dep/node_modules/nested/package.json': JSON.stringify({ version: '2.0.0' }),
  'node_modules/nested/package.json': JSON.stringify({ version: '1.0.0' }),
  'node_modules/dev-only/package.json': JSON.stringify({ version: '1.0.0' }),
  // A path longer than ustar's 100 + 155 bytes: it needs a pax header.
  [`node_modules/tiny-dep/${'deep/'.repeat(60)}file.js`]: 'deep\n',
};

let work: string;
let releaseDir: string;
let server: GoDBServer;
let smtp: SmtpPeer;

async function startOn(root: string, release: string, extra: Record<string, string> = {}): Promise<GoDBServer> {
  const port = await smtp.start();
  const config = loadConfig({
    DATA_DIR: mkdtempSync(join(work, 'data-')),
    LOG_LEVEL: 'silent',
    MODELS_DIR: join(work, 'models'),
    MODEL_CACHE_DIR: join(work, 'model-cache'),
    GRPC_PORT: '0',
    RELEASE_DIR: release,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(port),
    MAIL_RETRY_BASE_MS: '50',
    PUBLIC_URL: 'http://godb.test',
    ...extra,
  });
  return createServer(config, undefined, { releaseRoot: root });
}

/** Asks for the binary as the website does and returns the path of the link it was mailed. */
async function requestLink(email: string): Promise<string> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1.0/email/send',
    payload: {
      service_id: 'godb',
      template_id: 'binary_request',
      user_id: 'godb-public-key',
      template_params: { from_name: 'Ada', from_company: 'Engines Ltd', from_email: email },
    },
  });
  assert.equal(res.statusCode, 200, res.body);
  const mail = await smtp.waitForMessage((m) => m.to === email);
  const url = /http:\/\/godb\.test(\/api\/v1\/downloads\/\S+)/.exec(mail.text)?.[1];
  assert.ok(url, mail.text);
  return url;
}

/** The member names of a .tar.gz, as `tar -tzf` lists them. */
function listTarball(bytes: Buffer): string[] {
  const file = join(work, `listed-${Math.random().toString(36).slice(2)}.tar.gz`);
  writeFileSync(file, bytes);
  return execFileSync('tar', ['-tzf', file], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'godb-issue-20-release-'));
  plant(join(work, 'install'), built);
  releaseDir = join(work, 'release'); // does not exist yet, as on a fresh install
  smtp = new SmtpPeer();
  server = await startOn(join(work, 'install'), releaseDir);
});

after(async () => {
  await server.close();
  await smtp.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('issue 20: the mailed release link works on an install that was never packaged', () => {
  test('the first downloads stream the release as it is built; it is then kept and served from RELEASE_DIR', async () => {
    const url = await requestLink('ada@example.com');
    assert.equal(existsSync(join(releaseDir, 'godb-0.1.0.tar.gz')), false);

    // Two visitors click at once: both follow the one build.
    const [first, second] = await Promise.all([server.app.inject({ url }), server.app.inject({ url })]);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.headers['content-type'], 'application/gzip');
    assert.match(String(first.headers['content-disposition']), /filename="godb-0\.1\.0\.tar\.gz"/);
    assert.deepEqual(second.rawPayload, first.rawPayload);

    const names = listTarball(first.rawPayload);
    for (const expected of [
      'godb-0.1.0/START.txt',
      'godb-0.1.0/package.json',
      'godb-0.1.0/README.md',
      'godb-0.1.0/server/dist/main.js',
      'godb-0.1.0/contract/dist/index.js',
      'godb-0.1.0/contract/proto/godb.proto',
      'godb-0.1.0/web/dist/index.html',
      'godb-0.1.0/node_modules/tiny-dep/index.js',
      `godb-0.1.0/node_modules/tiny-dep/prebuilds/${process.platform}-${process.arch}/tiny.node`,
      'godb-0.1.0/node_modules/tiny-dep/node_modules/nested/package.json',
      `godb-0.1.0/node_modules/tiny-dep/${'deep/'.repeat(60)}file.js`,
      'godb-0.1.0/node_modules/@godb/contract',
    ])
      assert.ok(names.includes(expected), `${expected} is in the release`);
    for (const absent of [
      /\.map$/,
      /\/src\//,
      /dev-only/,
      new RegExp(`prebuilds/${otherOs}-`),
      /^godb-0\.1\.0\/node_modules\/nested\//,
    ])
      assert.equal(
        names.find((n) => absent.test(n)),
        undefined,
        `nothing matching ${String(absent)} is in the release`,
      );

    // Unpacked, the workspace link resolves as npm made it.
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    writeFileSync(join(work, 'release.tar.gz'), first.rawPayload);
    execFileSync('tar', ['-xzf', join(work, 'release.tar.gz'), '-C', unpacked]);
    assert.equal(
      readFileSync(join(unpacked, 'godb-0.1.0/node_modules/@godb/contract/dist/index.js'), 'utf8'),
      'export {};\n',
    );

    // The build was kept (and nothing half-written is left beside it): later downloads are the same bytes.
    assert.deepEqual(readdirSync(releaseDir), ['godb-0.1.0.tar.gz']);
    const later = await server.app.inject({ url });
    assert.equal(later.statusCode, 200);
    assert.deepEqual(later.rawPayload, first.rawPayload);
  });

  test('an install that cannot be packaged answers 404 naming what is missing, not a broken download', async () => {
    const bare = join(work, 'bare');
    plant(bare, { ...built, 'web/dist/index.html': '' });
    rmSync(join(bare, 'web', 'dist'), { recursive: true });
    await server.close();
    await smtp.stop();
    server = await startOn(bare, join(work, 'bare-release'));
    const res = await server.app.inject({ url: await requestLink('grace@example.com') });
    assert.equal(res.statusCode, 404);
    assert.match(
      (res.json() as { error: { message: string } }).error.message,
      /^Release godb-0\.1\.0\.tar\.gz \(it cannot be built here: web\/dist\/index\.html is missing; the operator can run npm run package\) not found$/,
    );
    assert.equal(existsSync(join(work, 'bare-release', 'godb-0.1.0.tar.gz')), false);
  });

  test('a download slower than WRITE_TIMEOUT_MS is not cut off: the timeout bounds the work, not the transfer', async () => {
    const release = join(work, 'slow-release');
    mkdirSync(release);
    // Larger than what loopback socket buffers absorb, so the transfer outlives the timeout while the client waits.
    const bytes = randomBytes(48 * 1024 * 1024);
    writeFileSync(join(release, 'godb-0.1.0.tar.gz'), bytes);
    await server.close();
    await smtp.stop();
    server = await startOn(join(work, 'install'), release, { WRITE_TIMEOUT_MS: '100' });
    const url = await requestLink('slow@example.com');
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.app.server.address() as { port: number };
    const received = await new Promise<Buffer>((resolve, reject) => {
      get(`http://127.0.0.1:${port}${url}`, (res) => {
        const chunks: Buffer[] = [];
        res.pause(); // a slow line: nothing is read for several times WRITE_TIMEOUT_MS
        void sleep(600).then(() => res.resume());
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', reject);
      }).on('error', reject);
    });
    assert.equal(received.length, bytes.length);
    assert.equal(createHash('sha256').update(received).digest('hex'), createHash('sha256').update(bytes).digest('hex'));
  });

  test('a build that died (the server crashed mid-way) leaves a hidden partial file that the next build removes', async () => {
    const release = join(work, 'crashed-release');
    mkdirSync(release);
    const dead = join(release, '.0b6c1d0e-1111-4222-8333-944455556666.partial');
    const live = join(release, '.0b6c1d0e-7777-4888-9999-aaaabbbbcccc.partial'); // another server, still writing
    writeFileSync(dead, 'half a release');
    writeFileSync(live, 'a release in progress');
    const anHourAgo = new Date(Date.now() - 3600_000);
    utimesSync(dead, anHourAgo, anHourAgo);
    await server.close();
    await smtp.stop();
    server = await startOn(join(work, 'install'), release);
    const res = await server.app.inject({ url: await requestLink('crash@example.com') });
    assert.equal(res.statusCode, 200);
    assert.ok(listTarball(res.rawPayload).includes('godb-0.1.0/server/dist/main.js'));
    assert.deepEqual(readdirSync(release).sort(), [
      '.0b6c1d0e-7777-4888-9999-aaaabbbbcccc.partial',
      'godb-0.1.0.tar.gz',
    ]);
  });
});
