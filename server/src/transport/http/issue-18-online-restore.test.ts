import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { restoreCommand } from '../../restore-command.js';
import { startSwift, type SwiftS3 } from '../../test-support/swift.js';
import { bearer, startTestServer, superAdmin, type TestServer } from '../../test-support/server.js';

/**
 * Issue #18, restores on a running server: a tenant admin snapshots its tenant while writes go on and restores it
 * with POST /api/v1/snapshots/restore, which replaces that tenant's data only (another tenant keeps answering and
 * keeps its writes); a damaged snapshot is refused before anything changes; the restored HNSW index is loaded from
 * its file, not rebuilt, and every search kind answers. The super admin restores a whole-node snapshot into an
 * empty running node, and `godb restore s3://bucket/key` reads one from a bucket. With the `internal` provider and
 * with `s3` against a real OpenStack Swift.
 */

const words = 'shock wave boundary layer heat transfer wing lift drag nozzle flow vortex panel shell stress'.split(' ');
const glove = { model_name: 'glove-100' };
const attachment = Buffer.from('%PDF-1.7 the restored score');

interface Job {
  status: string;
  processed: number;
  total: number;
  error?: string;
}

let swift: SwiftS3 | null = null;
let work: string;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'godb-online-restore-'));
});

after(async () => {
  await swift?.stop();
  rmSync(work, { recursive: true, force: true });
});

const prefix = 'online-restore-test/';
const providers: { name: string; s3: boolean; env(): Promise<Record<string, string>> }[] = [
  { name: 'internal', s3: false, env: async () => ({ DEFAULT_EMBEDDING_MODEL: 'glove-100' }) },
  {
    name: 's3 (OpenStack Swift)',
    s3: true,
    async env() {
      swift = await startSwift();
      await swift.createBucket('godb');
      return swift.godbEnv('godb', { S3_PREFIX: prefix, DEFAULT_EMBEDDING_MODEL: 'glove-100' });
    },
  },
];

const capture = () => ({
  text: '',
  write(text: string) {
    this.text += text;
    return true;
  },
});

async function waitForJob(server: TestServer, token: string, jobId: string): Promise<Job> {
  for (;;) {
    const job = (await server.app.inject({ url: `/api/v1/jobs/${jobId}`, headers: bearer(token) })).json() as Job;
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((done) => setTimeout(done, 20));
  }
}

for (const provider of providers) {
  describe(`issue 18: online restore with the ${provider.name} provider`, () => {
    let env: Record<string, string>;
    let server: TestServer;
    let fresh: TestServer | null = null;

    before(async () => {
      env = await provider.env();
      server = await startTestServer(env);
    });
    after(async () => {
      await fresh?.close();
      await server?.close();
    });

    /** The stored archive of a snapshot, read and written where the provider keeps it. */
    const archiveOf = async (dataDir: string, id: string): Promise<Buffer> => {
      if (!provider.s3) return readFileSync(join(dataDir, 'snapshots', `${id}.tar`));
      const object = await swift!.client.send(
        new GetObjectCommand({ Bucket: 'godb', Key: `${prefix}snapshots/${id}.tar` }),
      );
      return Buffer.from(await object.Body!.transformToByteArray());
    };
    const storeArchive = async (dataDir: string, id: string, bytes: Buffer) => {
      if (!provider.s3) writeFileSync(join(dataDir, 'snapshots', `${id}.tar`), bytes);
      else
        await swift!.client.send(
          new PutObjectCommand({ Bucket: 'godb', Key: `${prefix}snapshots/${id}.tar`, Body: bytes }),
        );
    };

    test('a tenant restore replaces that tenant only, refuses a damaged snapshot, and loads the HNSW file as it is', async () => {
      const owner = await server.registerTenant();
      const other = await server.registerTenant();
      const root = await server.login(superAdmin.email, superAdmin.password);
      const add = (token: string, payload: Record<string, unknown>) =>
        server.app.inject({ method: 'POST', url: '/api/v1/documents', headers: bearer(token), payload });
      // Past 2,000 vectors a tenant's vector search goes through its HNSW index rather than an exact scan.
      const docs = Array.from({ length: 2100 }, (_v, i) => ({
        id: `d${i}`,
        title: `paper ${i}`,
        content: `${words[i % words.length]} ${words[(i * 7) % words.length]} ${words[(i * 11) % words.length]}`,
        metadata: { n: i },
        tags: [words[i % 3]!],
        location: [48 + (i % 10) / 100, 2 + (i % 10) / 100],
        embedding_options: glove,
      }));
      const batch = await server.app.inject({
        method: 'POST',
        url: '/api/v1/documents/batch',
        headers: bearer(owner.token),
        payload: docs,
      });
      assert.equal(batch.statusCode, 200, batch.body);
      const withFile = await add(owner.token, {
        id: 'score',
        content: 'xylophone quartet',
        embedding_options: glove,
        file_content: attachment.toString('base64'),
      });
      assert.equal(withFile.statusCode, 201, withFile.body);
      assert.equal(
        (await add(other.token, { id: 'theirs', content: 'marimba trio', embedding_options: glove })).statusCode,
        201,
      );
      // A vector search loads the index, so the snapshot carries its file.
      const warm = await server.app.inject({
        method: 'POST',
        url: '/api/v1/search/vector',
        headers: bearer(owner.token),
        payload: { query: 'shock wave', embedding_options: glove, threshold: 0 },
      });
      assert.equal(warm.statusCode, 200, warm.body);

      // The tenant admin snapshots its tenant while both tenants keep writing.
      const acknowledged: string[] = [];
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing; i++) {
          const mine = await add(owner.token, { id: `live${i}`, content: `zeppelin hangar`, embedding_options: glove });
          assert.equal(mine.statusCode, 201, mine.body);
          acknowledged.push(`live${i}`);
          const theirs = await add(other.token, { id: `other${i}`, content: 'marimba', embedding_options: glove });
          assert.equal(theirs.statusCode, 201, theirs.body);
        }
      })();
      while (acknowledged.length < 3) await new Promise((done) => setImmediate(done));
      const before = [...acknowledged];
      const accepted = await server.app.inject({
        method: 'POST',
        url: '/api/v1/snapshots',
        headers: bearer(owner.token),
      });
      assert.equal(accepted.statusCode, 202, accepted.body);
      const { snapshot_id: id, job_id: jobId } = accepted.json() as { snapshot_id: string; job_id: string };
      const job = await waitForJob(server, owner.token, jobId);
      writing = false;
      await writer;
      assert.equal(job.status, 'done', job.error);

      // Listing, download and delete respect who made it.
      type Listed = { snapshots: { id: string; scope: string; tenant_id?: string; files: { path: string }[] }[] };
      const listAs = async (token: string) =>
        ((await server.app.inject({ url: '/api/v1/snapshots', headers: bearer(token) })).json() as Listed).snapshots;
      const mine = (await listAs(owner.token)).find((s) => s.id === id);
      assert.ok(mine, 'the tenant admin sees its snapshot');
      assert.equal(mine.scope, 'tenant');
      assert.equal(mine.tenant_id, owner.tenantId);
      const paths = mine.files.map((f) => f.path);
      assert.ok(paths.includes('tenant.sqlite'), JSON.stringify(paths));
      assert.ok(
        paths.some((p) => p.startsWith(`vectors/${encodeURIComponent(owner.tenantId)}/`)),
        JSON.stringify(paths),
      );
      assert.ok(
        paths.some((p) => p.startsWith('files/')),
        JSON.stringify(paths),
      );
      assert.ok(!paths.some((p) => p.includes(encodeURIComponent(other.tenantId))), 'nothing of the other tenant');
      assert.ok(!(await listAs(other.token)).some((s) => s.id === id), 'another tenant does not see it');
      assert.ok(
        (await listAs(root)).some((s) => s.id === id),
        'the super admin sees every snapshot',
      );
      for (const method of ['GET', 'DELETE'] as const) {
        const res = await server.app.inject({ method, url: `/api/v1/snapshots/${id}`, headers: bearer(other.token) });
        assert.equal(res.statusCode, 404, `${method} by another tenant: ${res.body}`);
      }
      const foreign = await server.app.inject({
        method: 'POST',
        url: '/api/v1/snapshots/restore',
        headers: bearer(other.token),
        payload: { snapshot_id: id },
      });
      assert.equal(foreign.statusCode, 404, foreign.body);

      // `godb restore` takes whole-node snapshots only: a tenant's restores on a running server.
      const download = await server.app.inject({ url: `/api/v1/snapshots/${id}`, headers: bearer(owner.token) });
      assert.equal(download.statusCode, 200);
      const tenantFile = join(work, `${id}.tar`);
      writeFileSync(tenantFile, download.rawPayload);
      const err = capture();
      const offline = join(work, `offline-${provider.s3 ? 's3' : 'internal'}`);
      assert.equal(await restoreCommand([tenantFile], { ...env, DATA_DIR: offline }, capture(), err), 1);
      assert.match(err.text, /POST \/api\/v1\/snapshots\/restore/);

      // After the snapshot: the owner deletes a document and writes a new one; the other tenant writes too.
      const deleted = await server.app.inject({
        method: 'DELETE',
        url: '/api/v1/documents/d1?permanent=true',
        headers: bearer(owner.token),
      });
      assert.equal(deleted.statusCode, 200, deleted.body);
      // Purging the document with a file deletes the file from the store; the restore puts it back.
      const purged = await server.app.inject({
        method: 'DELETE',
        url: '/api/v1/documents/score?permanent=true',
        headers: bearer(owner.token),
      });
      assert.equal(purged.statusCode, 200, purged.body);
      assert.equal(
        (await server.app.inject({ url: '/api/v1/documents/score/file', headers: bearer(owner.token) })).statusCode,
        404,
      );
      assert.equal(
        (await add(owner.token, { id: 'after', content: 'written after', embedding_options: glove })).statusCode,
        201,
      );
      assert.equal(
        (await add(other.token, { id: 'other-after', content: 'still here', embedding_options: glove })).statusCode,
        201,
      );
      const count = async (srv: TestServer, token: string) =>
        (
          (
            await srv.app.inject({
              method: 'POST',
              url: '/api/v1/documents/count',
              headers: bearer(token),
              payload: {},
            })
          ).json() as { count: number }
        ).count;
      const otherCount = await count(server, other.token);

      // A damaged archive is refused before anything changes.
      const original = await archiveOf(server.dataDir, id);
      const damaged = Buffer.from(original);
      const at = Math.floor(damaged.length / 2);
      damaged[at] = damaged[at]! ^ 0xff;
      await storeArchive(server.dataDir, id, damaged);
      const refused = await server.app.inject({
        method: 'POST',
        url: '/api/v1/snapshots/restore',
        headers: bearer(owner.token),
        payload: { snapshot_id: id },
      });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.equal((refused.json() as { error: { code: string } }).error.code, 'SNAPSHOT_CORRUPT');
      const stillAfter = await server.app.inject({ url: '/api/v1/documents/after', headers: bearer(owner.token) });
      assert.equal(stillAfter.statusCode, 200, 'nothing was restored');
      await storeArchive(server.dataDir, id, original);

      // The restore, while the other tenant keeps searching.
      const restored = await server.app.inject({
        method: 'POST',
        url: '/api/v1/snapshots/restore',
        headers: bearer(owner.token),
        payload: { snapshot_id: id },
      });
      assert.equal(restored.statusCode, 202, restored.body);
      const answer = restored.json() as { scope: string; tenants: string[]; job_id: string };
      assert.equal(answer.scope, 'tenant');
      assert.deepEqual(answer.tenants, [owner.tenantId]);
      const searchesMeanwhile = [];
      for (let i = 0; i < 5; i++) {
        searchesMeanwhile.push(
          server.app.inject({
            method: 'POST',
            url: '/api/v1/search/text',
            headers: bearer(other.token),
            payload: { query: 'marimba' },
          }),
        );
      }
      const restoreJob = await waitForJob(server, owner.token, answer.job_id);
      assert.equal(restoreJob.status, 'done', restoreJob.error);
      for (const res of await Promise.all(searchesMeanwhile)) {
        assert.equal(res.statusCode, 200, res.body);
        assert.ok((res.json() as { results: unknown[] }).results.length > 0);
      }

      // The owner's data is the snapshot's: what was deleted since is back, what was written since is gone, every
      // write acknowledged before the snapshot is there.
      const get = (token: string, doc: string) =>
        server.app.inject({ url: `/api/v1/documents/${doc}`, headers: bearer(token) });
      assert.equal((await get(owner.token, 'd1')).statusCode, 200, 'deleted after the snapshot: restored');
      assert.equal((await get(owner.token, 'after')).statusCode, 404, 'written after the snapshot: gone');
      for (const live of before) assert.equal((await get(owner.token, live)).statusCode, 200, live);
      assert.ok((await count(server, owner.token)) >= docs.length + 1 + before.length);
      const file = await server.app.inject({ url: '/api/v1/documents/score/file', headers: bearer(owner.token) });
      assert.equal(file.statusCode, 200, file.body);
      assert.equal(file.rawPayload.toString(), attachment.toString());
      // The other tenant is untouched, its writes after the snapshot included.
      assert.equal(await count(server, other.token), otherCount);
      assert.equal((await get(other.token, 'other-after')).statusCode, 200);

      // Every search kind answers, and the vector index came from the snapshot's file, not a rebuild.
      const search = async (kind: string, body: Record<string, unknown>) => {
        const res = await server.app.inject({
          method: 'POST',
          url: `/api/v1/search/${kind}`,
          headers: bearer(owner.token),
          payload: body,
        });
        assert.equal(res.statusCode, 200, `${kind}: ${res.body}`);
        return res.json() as { results?: { document_id: string }[]; suggestions?: unknown[] };
      };
      assert.ok((await search('text', { query: 'vortex' })).results!.length > 0, 'text');
      assert.ok((await search('fuzzy', { query: 'vortexx' })).results!.length > 0, 'fuzzy');
      assert.ok(
        (await search('vector', { query: 'shock wave', embedding_options: glove, threshold: 0 })).results!.length > 0,
      );
      assert.ok((await search('hybrid', { query: 'shock wave' })).results!.length > 0);
      assert.ok((await search('geo', { lat: 48.01, lon: 2.01, radius: 25 })).results!.length > 0, 'geo');
      assert.ok((await search('faceted', { query: 'vortex', facets: ['tags'] })).results!.length > 0, 'faceted');
      assert.ok((await search('autocomplete', { prefix: 'vort' })).suggestions!.length > 0, 'autocomplete');
      assert.ok((await search('smart', { query: 'shock wave' })).results!.length > 0, 'smart');
      assert.ok((await search('multi-table', { table_names: ['documents'], query: 'vortex' })).results!.length > 0);
      const collection = await server.app.inject({
        url: '/api/v1/collections/documents',
        headers: bearer(owner.token),
      });
      assert.equal(collection.statusCode, 200, collection.body);
      const stats = (collection.json() as { vector_stats: Record<string, { index: string; loaded_from?: string }> })
        .vector_stats['glove-100'];
      assert.deepEqual(
        { index: stats?.index, loaded_from: stats?.loaded_from },
        { index: 'ready', loaded_from: 'file' },
        'the restored HNSW index was loaded from its file, not rebuilt',
      );
    });

    test('the super admin restores a whole-node snapshot into an empty running node, never into one with data', async () => {
      const owner = await server.registerTenant();
      const root = await server.login(superAdmin.email, superAdmin.password);
      const batch = await server.app.inject({
        method: 'POST',
        url: '/api/v1/documents/batch',
        headers: bearer(owner.token),
        payload: Array.from({ length: 2050 }, (_v, i) => ({
          id: `n${i}`,
          content: `${words[i % words.length]} ${words[(i * 5) % words.length]}`,
          embedding_options: glove,
        })),
      });
      assert.equal(batch.statusCode, 200, batch.body);
      const warm = await server.app.inject({
        method: 'POST',
        url: '/api/v1/search/vector',
        headers: bearer(owner.token),
        payload: { query: 'heat transfer', embedding_options: glove, threshold: 0 },
      });
      assert.equal(warm.statusCode, 200, warm.body);
      const accepted = await server.app.inject({ method: 'POST', url: '/api/v1/snapshots', headers: bearer(root) });
      assert.equal(accepted.statusCode, 202, accepted.body);
      const { snapshot_id: id, job_id: jobId } = accepted.json() as { snapshot_id: string; job_id: string };
      assert.equal((await waitForJob(server, root, jobId)).status, 'done');

      // A node with data refuses it.
      const busy = await server.app.inject({
        method: 'POST',
        url: '/api/v1/snapshots/restore',
        headers: bearer(root),
        payload: { snapshot_id: id },
      });
      assert.equal(busy.statusCode, 409, busy.body);
      assert.equal((busy.json() as { error: { code: string } }).error.code, 'SNAPSHOT_NODE_NOT_EMPTY');

      // An empty node on the same snapshot store (the bucket; or a copy of the archive in its DATA_DIR) takes it.
      fresh = await startTestServer(env);
      if (!provider.s3) {
        mkdirSync(join(fresh.dataDir, 'snapshots'), { recursive: true });
        for (const name of [`${id}.tar`, `${id}.manifest.json`])
          copyFileSync(join(server.dataDir, 'snapshots', name), join(fresh.dataDir, 'snapshots', name));
      }
      const freshRoot = await fresh.login(superAdmin.email, superAdmin.password);
      const restored = await fresh.app.inject({
        method: 'POST',
        url: '/api/v1/snapshots/restore',
        headers: bearer(freshRoot),
        payload: { snapshot_id: id },
      });
      assert.equal(restored.statusCode, 202, restored.body);
      const answer = restored.json() as { scope: string; tenants: string[]; job_id: string };
      assert.equal(answer.scope, 'node');
      assert.ok(answer.tenants.includes(owner.tenantId));
      const job = await waitForJob(fresh, freshRoot, answer.job_id);
      assert.equal(job.status, 'done', job.error);
      assert.deepEqual(
        readdirSync(join(fresh.dataDir, 'snapshots')).filter((name) => name.startsWith('.restore-')),
        [],
        'its unpacked snapshot is removed once every tenant is restored from it',
      );

      const token = await fresh.login(owner.email, owner.password);
      const got = await fresh.app.inject({ url: '/api/v1/documents/n7', headers: bearer(token) });
      assert.equal(got.statusCode, 200, got.body);
      const vector = await fresh.app.inject({
        method: 'POST',
        url: '/api/v1/search/vector',
        headers: bearer(token),
        payload: { query: 'heat transfer', embedding_options: glove, threshold: 0 },
      });
      assert.equal(vector.statusCode, 200, vector.body);
      assert.ok((vector.json() as { results: unknown[] }).results.length > 0);
      const text = await fresh.app.inject({
        method: 'POST',
        url: '/api/v1/search/text',
        headers: bearer(token),
        payload: { query: 'nozzle' },
      });
      assert.ok((text.json() as { results: unknown[] }).results.length > 0, text.body);
      const info = await fresh.app.inject({ url: '/api/v1/collections/documents', headers: bearer(token) });
      const stats = (info.json() as { vector_stats: Record<string, { loaded_from?: string }> }).vector_stats[
        'glove-100'
      ];
      assert.equal(stats?.loaded_from, 'file', info.body);

      // With s3, `godb restore s3://bucket/key` reads the same archive straight from the bucket.
      if (provider.s3) {
        const out = capture();
        const err = capture();
        const dataDir = join(work, 'from-s3-url');
        const code = await restoreCommand(
          [`s3://godb/${prefix}snapshots/${id}.tar`],
          { ...env, DATA_DIR: dataDir },
          out,
          err,
        );
        assert.equal(code, 0, err.text);
        assert.match(out.text, new RegExp(`Restored snapshot ${id}`));
      }
    });
    test('an uploaded archive is checked before it is stored, then restores by its id', async () => {
      const owner = await server.registerTenant();
      const other = await server.registerTenant();
      const batch = await server.app.inject({
        method: 'POST',
        url: '/api/v1/documents/batch',
        headers: bearer(owner.token),
        payload: Array.from({ length: 20 }, (_v, i) => ({
          id: `u${i}`,
          content: `uploaded ${words[i % words.length]}`,
        })),
      });
      assert.equal(batch.statusCode, 200, batch.body);
      const taken = await server.app.inject({ method: 'POST', url: '/api/v1/snapshots', headers: bearer(owner.token) });
      const { snapshot_id: id, job_id: jobId } = taken.json() as { snapshot_id: string; job_id: string };
      assert.equal((await waitForJob(server, owner.token, jobId)).status, 'done');
      const archive = (await server.app.inject({ url: `/api/v1/snapshots/${id}`, headers: bearer(owner.token) }))
        .rawPayload;
      const upload = (token: string, payload: Buffer) =>
        server.app.inject({
          method: 'POST',
          url: '/api/v1/snapshots/upload',
          headers: { ...bearer(token), 'content-type': 'application/x-tar' },
          payload,
        });
      const codeOf = (res: { json(): unknown }) => (res.json() as { error: { code: string } }).error.code;

      // Already stored under its id: refused, as is another tenant's archive, and a damaged one.
      const twice = await upload(owner.token, archive);
      assert.equal(twice.statusCode, 409, twice.body);
      assert.equal(codeOf(twice), 'SNAPSHOT_NOT_RESTORABLE');
      assert.equal(
        (await server.app.inject({ method: 'DELETE', url: `/api/v1/snapshots/${id}`, headers: bearer(owner.token) }))
          .statusCode,
        200,
      );
      const foreign = await upload(other.token, archive);
      assert.equal(foreign.statusCode, 409, foreign.body);
      assert.equal(codeOf(foreign), 'SNAPSHOT_NOT_RESTORABLE');
      const damaged = Buffer.from(archive);
      const at = Math.floor(damaged.length / 2);
      damaged[at] = damaged[at]! ^ 0xff;
      const refused = await upload(owner.token, damaged);
      assert.equal(refused.statusCode, 400, refused.body);
      assert.equal(codeOf(refused), 'SNAPSHOT_CORRUPT');
      const notJson = await server.app.inject({
        method: 'POST',
        url: '/api/v1/snapshots/upload',
        headers: bearer(owner.token),
        payload: { snapshot: 'x' },
      });
      assert.equal(notJson.statusCode, 415, notJson.body);
      const listed = (await server.app.inject({ url: '/api/v1/snapshots', headers: bearer(owner.token) })).json() as {
        snapshots: { id: string }[];
      };
      assert.ok(!listed.snapshots.some((s) => s.id === id), 'nothing refused was kept');

      // The sound archive is stored, then restored by its id.
      const stored = await upload(owner.token, archive);
      assert.equal(stored.statusCode, 201, stored.body);
      assert.deepEqual(
        { ...(stored.json() as Record<string, unknown>), bytes: 0 },
        { success: true, snapshot_id: id, scope: 'tenant', tenant_id: owner.tenantId, bytes: 0 },
      );
      const gone = await server.app.inject({
        method: 'DELETE',
        url: '/api/v1/documents/u3?permanent=true',
        headers: bearer(owner.token),
      });
      assert.equal(gone.statusCode, 200, gone.body);
      const restored = await server.app.inject({
        method: 'POST',
        url: '/api/v1/snapshots/restore',
        headers: bearer(owner.token),
        payload: { snapshot_id: id },
      });
      assert.equal(restored.statusCode, 202, restored.body);
      const job = await waitForJob(server, owner.token, (restored.json() as { job_id: string }).job_id);
      assert.equal(job.status, 'done', job.error);
      assert.equal(
        (await server.app.inject({ url: '/api/v1/documents/u3', headers: bearer(owner.token) })).statusCode,
        200,
      );
    });

    test('a tenant snapshot restored on another node whose documents use its seqs is renumbered, and answers', async () => {
      const origin = await startTestServer(env);
      const target = await startTestServer(env);
      try {
        const tenant = await origin.registerTenant();
        const batch = await origin.app.inject({
          method: 'POST',
          url: '/api/v1/documents/batch',
          headers: bearer(tenant.token),
          payload: Array.from({ length: 30 }, (_v, i) => ({
            id: `t${i}`,
            content: `${words[i % words.length]} travelling tenant`,
            embedding_options: glove,
          })),
        });
        assert.equal(batch.statusCode, 200, batch.body);
        const taken = await origin.app.inject({
          method: 'POST',
          url: '/api/v1/snapshots',
          headers: bearer(tenant.token),
        });
        const { snapshot_id: id, job_id: jobId } = taken.json() as { snapshot_id: string; job_id: string };
        assert.equal((await waitForJob(origin, tenant.token, jobId)).status, 'done');

        // The target node's own tenant holds seqs 1…40, which the snapshot's rows use too.
        const resident = await target.registerTenant();
        const own = await target.app.inject({
          method: 'POST',
          url: '/api/v1/documents/batch',
          headers: bearer(resident.token),
          payload: Array.from({ length: 40 }, (_v, i) => ({
            id: `r${i}`,
            content: 'resident rows',
            embedding_options: glove,
          })),
        });
        assert.equal(own.statusCode, 200, own.body);
        if (!provider.s3) {
          mkdirSync(join(target.dataDir, 'snapshots'), { recursive: true });
          for (const name of [`${id}.tar`, `${id}.manifest.json`])
            copyFileSync(join(origin.dataDir, 'snapshots', name), join(target.dataDir, 'snapshots', name));
        }
        const root = await target.login(superAdmin.email, superAdmin.password);
        const restored = await target.app.inject({
          method: 'POST',
          url: '/api/v1/snapshots/restore',
          headers: bearer(root),
          payload: { snapshot_id: id },
        });
        assert.equal(restored.statusCode, 202, restored.body);
        const job = await waitForJob(target, root, (restored.json() as { job_id: string }).job_id);
        assert.equal(job.status, 'done', job.error);

        // The tenant exists on the target now; the super admin gives it an admin, who finds its documents.
        const admin = await target.app.inject({
          method: 'POST',
          url: '/auth/admin/users',
          headers: bearer(root),
          payload: {
            email: `moved-${tenant.tenantId}@example.com`,
            password: 'password-1234',
            tenant_id: tenant.tenantId,
          },
        });
        assert.equal(admin.statusCode, 201, admin.body);
        const token = await target.login(`moved-${tenant.tenantId}@example.com`, 'password-1234');
        const text = await target.app.inject({
          method: 'POST',
          url: '/api/v1/search/text',
          headers: bearer(token),
          payload: { query: 'travelling', limit: 100 },
        });
        assert.equal((text.json() as { results: unknown[] }).results.length, 30, text.body);
        const vector = await target.app.inject({
          method: 'POST',
          url: '/api/v1/search/vector',
          headers: bearer(token),
          payload: { query: 'travelling tenant', embedding_options: glove, threshold: 0, limit: 100 },
        });
        const found = (vector.json() as { results: { document_id: string }[] }).results.map((r) => r.document_id);
        assert.equal(found.length, 30, vector.body);
        assert.ok(
          found.every((doc) => doc.startsWith('t')),
          'only the restored tenant’s documents',
        );
        // The resident tenant is untouched.
        const mine = await target.app.inject({
          method: 'POST',
          url: '/api/v1/search/text',
          headers: bearer(resident.token),
          payload: { query: 'resident', limit: 100 },
        });
        assert.equal((mine.json() as { results: unknown[] }).results.length, 40, mine.body);
      } finally {
        await target.close();
        await origin.close();
      }
    });
  });
}
