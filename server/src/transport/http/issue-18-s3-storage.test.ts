import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, loadConfig } from '../../config/env.js';
import { createServer } from '../../compose/create-server.js';
import { DownloadLinks } from '../../service/mail/download-links.js';
import { startNodeProcess } from '../../test-support/node-process.js';
import { startSwift, type SwiftS3 } from '../../test-support/swift.js';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

/**
 * Issue #18, the s3 storage provider: files uploaded with documents are kept by the storage provider, served
 * back through the API and deleted with their documents, with the `internal` provider (DATA_DIR/files) and with
 * `s3` against a real OpenStack Swift (its S3 API, started from Debian's packages for this file). Start-up refuses
 * a bucket it cannot use, saying why; the mailed release link serves the archive from the bucket.
 */

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let swift: SwiftS3;
let work: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'godb-issue-18-'));
  swift = await startSwift();
  await swift.createBucket('godb');
});

after(async () => {
  await swift?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Every file under a folder, relative to it (none when it does not exist). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const visit = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory()) visit(join(at, entry.name));
      else out.push(relative(dir, join(at, entry.name)));
    }
  };
  try {
    visit(dir);
  } catch {
    return [];
  }
  return out;
}

/** The same story for each provider: where its objects are is the only difference. */
const providers: { name: string; start(): Promise<{ server: TestServer; stored(): Promise<string[]> }> }[] = [
  {
    name: 'internal',
    async start() {
      const server = await startTestServer();
      return { server, stored: async () => filesUnder(join(server.dataDir, 'files')) };
    },
  },
  {
    name: 's3 (OpenStack Swift)',
    async start() {
      const prefix = `round-trip-${randomBytes(4).toString('hex')}/`;
      const server = await startTestServer(swift.godbEnv('godb', { S3_PREFIX: prefix }));
      return { server, stored: () => swift.keys('godb', `${prefix}files/`) };
    },
  },
];

for (const provider of providers) {
  describe(`issue 18: uploaded files with the ${provider.name} provider`, () => {
    let server: TestServer;
    let stored: () => Promise<string[]>;
    before(async () => {
      ({ server, stored } = await provider.start());
    });
    after(async () => {
      await server?.close();
    });

    test('a file is served back to readers only, each version keeps its own, and a purge deletes them', async () => {
      const owner = await server.registerTenant();
      const first = randomBytes(3000);
      const second = Buffer.from('%PDF-1.7 the second version');
      const add = (bytes: Buffer) =>
        server.app.inject({
          method: 'POST',
          url: '/api/v1/documents',
          headers: bearer(owner.token),
          payload: {
            id: 'report',
            title: 'Quarterly report',
            content: 'Revenue grew.',
            content_type: 'application/pdf',
            visibility: 'private',
            file_content: bytes.toString('base64'),
          },
        });
      assert.equal((await add(first)).statusCode, 201);
      assert.equal((await stored()).length, 1);

      const download = (id: string, token = owner.token) =>
        server.app.inject({ url: `/api/v1/documents/${encodeURIComponent(id)}/file`, headers: bearer(token) });
      const got = await download('report');
      assert.equal(got.statusCode, 200, got.body);
      assert.equal(sha256(got.rawPayload), sha256(first));
      assert.equal(got.headers['content-type'], 'application/pdf');
      assert.equal(got.headers['content-disposition'], 'attachment; filename="report"');
      // The bare path serves it too.
      assert.equal(
        (await server.app.inject({ url: '/documents/report/file', headers: bearer(owner.token) })).statusCode,
        200,
      );

      // Someone who may not read the document gets 404, as for the document itself.
      const colleague = await server.addUser(owner);
      const hidden = await download('report', colleague.token);
      assert.equal(hidden.statusCode, 404);
      assert.equal(hidden.json().error.code, 'NOT_FOUND');

      // A new version with a new file: the earlier version keeps its own.
      assert.equal((await add(second)).statusCode, 201);
      assert.equal((await stored()).length, 2);
      assert.equal((await download('report')).rawPayload.toString(), second.toString());
      assert.equal(sha256((await download('report@v1')).rawPayload), sha256(first));

      // A document without a file has nothing to download.
      await server.app.inject({
        method: 'POST',
        url: '/api/v1/documents',
        headers: bearer(owner.token),
        payload: { id: 'plain', content: 'No attachment.' },
      });
      const none = await download('plain');
      assert.equal(none.statusCode, 404);
      assert.match(none.json().error.message, /File of document plain not found/);

      // Hidden: no longer served, but kept until the owner purges the document (it keeps its id until then).
      const hide = await server.app.inject({
        method: 'DELETE',
        url: '/api/v1/documents/report',
        headers: bearer(owner.token),
      });
      assert.equal(hide.statusCode, 200);
      assert.equal((await download('report')).statusCode, 404);
      assert.equal((await stored()).length, 2);

      const purge = await server.app.inject({
        method: 'DELETE',
        url: '/api/v1/documents/report?permanent=true',
        headers: bearer(owner.token),
      });
      assert.equal(purge.statusCode, 200, purge.body);
      assert.deepEqual(await stored(), []);
    });

    test('any id can carry a file: quotes and accents in the download name, ids too long for a file name', async () => {
      const owner = await server.registerTenant();
      const odd = 'résumé "2024"';
      const long = 'é'.repeat(250);
      for (const id of [odd, long]) {
        const added = await server.app.inject({
          method: 'POST',
          url: '/api/v1/documents',
          headers: bearer(owner.token),
          payload: {
            id,
            content: 'Curriculum.',
            content_type: 'text/plain',
            file_content: Buffer.from(id).toString('base64'),
          },
        });
        assert.equal(added.statusCode, 201, added.body);
        const got = await server.app.inject({
          url: `/api/v1/documents/${encodeURIComponent(id)}/file`,
          headers: bearer(owner.token),
        });
        assert.equal(got.statusCode, 200, got.body);
        assert.equal(got.rawPayload.toString(), id);
        assert.equal(got.headers['content-type'], 'text/plain');
      }
      const named = await server.app.inject({
        url: `/api/v1/documents/${encodeURIComponent(odd)}/file`,
        headers: bearer(owner.token),
      });
      assert.equal(
        named.headers['content-disposition'],
        `attachment; filename="r_sum_ _2024_"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%222024%22`,
      );
    });

    test('a batch that is refused leaves no file behind', async () => {
      const owner = await server.registerTenant();
      const colleague = await server.addUser(owner);
      const add = (token: string, docs: object[]) =>
        server.app.inject({ method: 'POST', url: '/api/v1/documents/batch', headers: bearer(token), payload: docs });
      const file = (text: string) => Buffer.from(text).toString('base64');
      assert.equal(
        (await add(owner.token, [{ id: 'taken', content: 'Mine.', visibility: 'private', file_content: file('a') }]))
          .statusCode,
        200,
      );
      const before = await stored();
      // The second document exists and belongs to someone else: the whole batch is refused, after its files
      // were stored, so they must be deleted again.
      const refused = await add(colleague.token, [
        { id: 'fresh', content: 'New.', file_content: file('b') },
        { id: 'taken', content: 'Overwrite.', file_content: file('c') },
      ]);
      assert.equal(refused.statusCode, 403, refused.body);
      assert.deepEqual((await stored()).sort(), before.sort());
    });
  });
}

describe('issue 18: the s3 provider against OpenStack Swift', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(swift.godbEnv('godb', { S3_PREFIX: 'large/', BODY_LIMIT_BYTES: '16777216' }));
  });
  after(async () => {
    await server?.close();
  });

  test('a large file goes to the bucket in parts and comes back whole', async () => {
    const owner = await server.registerTenant();
    const bytes = randomBytes(7 * 1024 * 1024);
    const added = await server.app.inject({
      method: 'POST',
      url: '/api/v1/documents',
      headers: bearer(owner.token),
      payload: { id: 'dataset', content: 'Seven mebibytes.', file_content: bytes.toString('base64') },
    });
    assert.equal(added.statusCode, 201, added.body);
    const [key] = await swift.keys('godb', 'large/files/');
    assert.ok(key);
    // S3 gives an object uploaded in parts the ETag <digest>-<number of parts>: 7 MiB in 5 MiB parts is 2.
    assert.match((await swift.etag('godb', key)) ?? '', /-2"$/);
    const got = await server.app.inject({ url: '/api/v1/documents/dataset/file', headers: bearer(owner.token) });
    assert.equal(got.statusCode, 200);
    assert.equal(got.headers['content-type'], 'application/octet-stream');
    assert.equal(got.headers['content-length'], String(bytes.length));
    assert.equal(sha256(got.rawPayload), sha256(bytes));
  });
});

describe('issue 18: an outage of the bucket', () => {
  test('a write answers 503 and stores nothing; a purge during it is completed at the next start', async () => {
    const env = swift.godbEnv('godb', { S3_PREFIX: 'outage/' });
    const dataDir = mkdtempSync(join(work, 'data-'));
    let server = await startTestServer({ ...env, DATA_DIR: dataDir });
    try {
      const owner = await server.registerTenant();
      const add = (id: string) =>
        server.app.inject({
          method: 'POST',
          url: '/api/v1/documents',
          headers: bearer(owner.token),
          payload: { id, content: 'Minutes.', file_content: Buffer.from(id).toString('base64') },
        });
      assert.equal((await add('kept')).statusCode, 201);
      const [key] = await swift.keys('godb', 'outage/files/');
      assert.ok(key);

      await swift.stopProxy();
      try {
        const refused = await add('during-outage');
        assert.equal(refused.statusCode, 503, refused.body);
        assert.equal(refused.json().error.code, 'STORAGE_UNAVAILABLE');
        assert.match(refused.json().error.message, /^The file store \(bucket godb\) could not be used: /);
        assert.doesNotMatch(refused.json().error.message, /127\.0\.0\.1/);
        const missing = await server.app.inject({
          url: '/api/v1/documents/during-outage',
          headers: bearer(owner.token),
        });
        assert.equal(missing.statusCode, 404);
        // The document is purged at once; its file cannot be deleted now and is remembered.
        const purged = await server.app.inject({
          method: 'DELETE',
          url: '/api/v1/documents/kept?permanent=true',
          headers: bearer(owner.token),
        });
        assert.equal(purged.statusCode, 200, purged.body);
      } finally {
        await swift.startProxy();
      }
      assert.deepEqual(await swift.keys('godb', 'outage/files/'), [key]);
      await server.close();
      // The next start deletes what is owed (in the background, once the bucket has been checked).
      server = await startTestServer({ ...env, DATA_DIR: dataDir });
      const deadline = Date.now() + 60_000;
      while ((await swift.keys('godb', 'outage/files/')).length > 0) {
        assert.ok(Date.now() < deadline, 'the purged document’s file was never deleted');
        await sleep(100);
      }
    } finally {
      await server.close();
    }
  });
});

describe('issue 18: start-up checks the bucket and says what is wrong', () => {
  const attempt = (extra: Record<string, string>) =>
    createServer(
      loadConfig({
        DATA_DIR: mkdtempSync(join(work, 'data-')),
        LOG_LEVEL: 'silent',
        GRPC_PORT: '0',
        ...swift.godbEnv('godb'),
        ...extra,
      }),
    );

  test('a bucket that does not exist', async () => {
    await assert.rejects(
      attempt({ S3_BUCKET: 'no-such-bucket' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message ===
          `STORAGE_PROVIDER=s3 cannot be used: S3_BUCKET "no-such-bucket" does not exist at S3_ENDPOINT ${swift.endpoint}; create it or correct S3_BUCKET.`,
    );
  });

  test('keys the store refuses', async () => {
    await assert.rejects(
      attempt({ S3_SECRET_ACCESS_KEY: 'not-the-secret' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /^STORAGE_PROVIDER=s3 cannot be used: S3_ENDPOINT \S+ refused the credentials for bucket "godb" \(SignatureDoesNotMatch: .+\); check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY\.$/.test(
          error.message,
        ),
    );
  });

  test('an endpoint nobody answers at', async () => {
    const closed = createNetServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    await assert.rejects(
      attempt({ S3_ENDPOINT: `http://127.0.0.1:${port}` }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.startsWith(
          `STORAGE_PROVIDER=s3 cannot be used: S3_ENDPOINT http://127.0.0.1:${port} cannot be reached (ECONNREFUSED`,
        ),
    );
  });

  test('the server process exits with 2 and that one line', async () => {
    const node = await startNodeProcess({
      LOG_LEVEL: 'error',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...swift.godbEnv('missing-bucket'),
    });
    const code = await node.exited;
    await node.stop();
    assert.equal(code, 2, node.output());
    assert.equal(
      node.output(),
      `STORAGE_PROVIDER=s3 cannot be used: S3_BUCKET "missing-bucket" does not exist at S3_ENDPOINT ${swift.endpoint}; create it or correct S3_BUCKET.\n`,
    );
  });
});

describe('issue 18: signed release links with the s3 provider', () => {
  /** A tiny install a release builds from in a second (see issue-20-release-download.test.ts). */
  function plant(root: string, files: Record<string, string>): void {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
  }

  test('the archive built on one server is kept in the bucket and served by another that cannot build it', async () => {
    const install = join(work, 'install');
    plant(install, {
      'package.json': JSON.stringify({ name: 'godb', version: '0.1.0' }),
      'server/package.json': JSON.stringify({ dependencies: { 'tiny-dep': '^1.0.0' } }),
      'node_modules/tiny-dep/package.json': JSON.stringify({ version: '1.0.0' }),
      'node_modules/tiny-dep/index.js': 'module.exports = 1;\n',
      'server/dist/main.js': 'console.log("GoDB");\n',
      'contract/package.json': JSON.stringify({ dependencies: {} }),
      'contract/dist/index.js': 'export {};\n',
      'web/package.json': JSON.stringify({ name: '@godb/web' }),
      'web/dist/index.html': '<!doctype html><title>GoDB</title>\n',
    });
    const secret = 'a-download-secret-of-at-least-32-characters';
    const start = (root: string) =>
      createServer(
        loadConfig({
          DATA_DIR: mkdtempSync(join(work, 'data-')),
          RELEASE_DIR: mkdtempSync(join(work, 'release-')),
          LOG_LEVEL: 'silent',
          GRPC_PORT: '0',
          DOWNLOAD_SECRET: secret,
          ...swift.godbEnv('godb', { S3_PREFIX: 'shared/' }),
        }),
        undefined,
        { releaseRoot: root },
      );
    const builder = await start(install);
    // The release this checkout serves: godb-<version of the repository's package.json>.tar.gz.
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    const file = `godb-${version}.tar.gz`;
    const link = new DownloadLinks(secret, 3600, 'http://godb.test', () => Date.now()).link(file).url;
    const path = link.replace('http://godb.test', '');
    try {
      const built = await builder.app.inject({ url: path });
      assert.equal(built.statusCode, 200, built.body);
      // The finished archive is copied to the bucket in the background.
      const deadline = Date.now() + 60_000;
      while (!(await swift.keys('godb', 'shared/releases/')).includes(`shared/releases/${file}`)) {
        assert.ok(Date.now() < deadline, 'the release never reached the bucket');
        await sleep(100);
      }
      // A second server on the same bucket, with an empty RELEASE_DIR and nothing to build from.
      const other = await start(join(work, 'nothing-to-build-from'));
      try {
        const served = await other.app.inject({ url: path });
        assert.equal(served.statusCode, 200, served.body);
        assert.equal(served.headers['content-type'], 'application/gzip');
        assert.equal(sha256(served.rawPayload), sha256(built.rawPayload));
      } finally {
        await other.close();
      }
    } finally {
      await builder.close();
    }
  });
});
