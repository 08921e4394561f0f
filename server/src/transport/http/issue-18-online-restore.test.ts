import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { restoreCommand } from '../../restore-command.js';
import { bearer, startTestServer, superAdmin, type TestServer } from '../../test-support/server.js';
import { aeroWords as words, glove, warmVectorIndex } from '../../test-support/glove-documents.js';
import { keepWriting } from '../../test-support/keep-writing.js';
import { capture, damaged, snapshotSuite } from '../../test-support/snapshots.js';

/**
 * Issue #18, restores on a running server: a tenant admin snapshots its tenant while writes go on and restores it
 * with POST /api/v1/snapshots/restore, which replaces that tenant's data only (another tenant keeps answering and
 * keeps its writes); a damaged snapshot is refused before anything changes; the restored HNSW index is loaded from
 * its file, not rebuilt, and every search kind answers. The super admin restores a whole-node snapshot into an
 * empty running node, and `godb restore s3://bucket/key` reads one from a bucket. With the `internal` provider and
 * with `s3` against a real OpenStack Swift.
 */

const attachment = Buffer.from('%PDF-1.7 the restored score');

const suite = snapshotSuite('online-restore');
suite.eachProvider('issue 18: online restore', (provider, run) => {
  /** The stored archive of a snapshot, read and written where the provider keeps it. */
  const archiveObject = (id: string) => ({ Bucket: 'godb', Key: `${suite.prefix}snapshots/${id}.tar` });
  const archiveOf = async (dataDir: string, id: string): Promise<Buffer> => {
    if (!provider.s3) return readFileSync(join(dataDir, 'snapshots', `${id}.tar`));
    const object = await suite.swift()!.client.send(new GetObjectCommand(archiveObject(id)));
    return Buffer.from(await object.Body!.transformToByteArray());
  };
  const storeArchive = async (dataDir: string, id: string, bytes: Buffer) => {
    if (!provider.s3) writeFileSync(join(dataDir, 'snapshots', `${id}.tar`), bytes);
    else await suite.swift()!.client.send(new PutObjectCommand({ ...archiveObject(id), Body: bytes }));
  };
  /** Lets `to` restore `from`'s snapshot: with s3 they share the bucket; else a copy goes to its DATA_DIR. */
  const shareSnapshot = (from: TestServer, to: TestServer, id: string) => {
    if (provider.s3) return;
    mkdirSync(join(to.dataDir, 'snapshots'), { recursive: true });
    for (const name of [`${id}.tar`, `${id}.manifest.json`])
      copyFileSync(join(from.dataDir, 'snapshots', name), join(to.dataDir, 'snapshots', name));
  };

  test('a tenant restore replaces that tenant only, refuses a damaged snapshot, and loads the HNSW file as it is', async () => {
    const { server, env } = run;
    const owner = await server.registerTenant();
    const other = await server.registerTenant();
    const root = await server.login(superAdmin.email, superAdmin.password);
    const add = (token: string, payload: Record<string, unknown>) =>
      server.call('POST', '/api/v1/documents', token, payload);
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
    const batch = await server.call('POST', '/api/v1/documents/batch', owner.token, docs);
    assert.equal(batch.status, 200, batch.text);
    const withFile = await add(owner.token, {
      id: 'score',
      content: 'xylophone quartet',
      embedding_options: glove,
      file_content: attachment.toString('base64'),
    });
    assert.equal(withFile.status, 201, withFile.text);
    assert.equal(
      (await add(other.token, { id: 'theirs', content: 'marimba trio', embedding_options: glove })).status,
      201,
    );
    // A vector search loads the index, so the snapshot carries its file.
    await warmVectorIndex(server, owner.token, 'shock wave');

    // The tenant admin snapshots its tenant while both tenants keep writing.
    const writer = keepWriting(async (i) => {
      const mine = await add(owner.token, { id: `live${i}`, content: `zeppelin hangar`, embedding_options: glove });
      assert.equal(mine.status, 201, mine.text);
      const theirs = await add(other.token, { id: `other${i}`, content: 'marimba', embedding_options: glove });
      assert.equal(theirs.status, 201, theirs.text);
      return `live${i}`;
    });
    await writer.acknowledgedAtLeast(3);
    const before = [...writer.acknowledged];
    const accepted = await server.call('POST', '/api/v1/snapshots', owner.token);
    assert.equal(accepted.status, 202, accepted.text);
    const { snapshot_id: id, job_id: jobId } = accepted.body as { snapshot_id: string; job_id: string };
    const job = await server.finishedJob(owner.token, jobId);
    await writer.stop();
    assert.equal(job.status, 'done', job.error);

    // Listing, download and delete respect who made it.
    type Listed = { snapshots: { id: string; scope: string; tenant_id?: string; files: { path: string }[] }[] };
    const listAs = async (token: string) =>
      ((await server.call('GET', '/api/v1/snapshots', token)).body as Listed).snapshots;
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
      const res = await server.call(method, `/api/v1/snapshots/${id}`, other.token);
      assert.equal(res.status, 404, `${method} by another tenant: ${res.text}`);
    }
    const foreign = await server.call('POST', '/api/v1/snapshots/restore', other.token, { snapshot_id: id });
    assert.equal(foreign.status, 404, foreign.text);

    // `godb restore` takes whole-node snapshots only: a tenant's restores on a running server.
    const download = await server.call('GET', `/api/v1/snapshots/${id}`, owner.token);
    assert.equal(download.status, 200);
    const tenantFile = suite.scratch(`${id}.tar`);
    writeFileSync(tenantFile, download.raw);
    const err = capture();
    const offline = suite.scratch(`offline-${provider.s3 ? 's3' : 'internal'}`);
    assert.equal(await restoreCommand([tenantFile], { ...env, DATA_DIR: offline }, capture(), err), 1);
    assert.match(err.text, /POST \/api\/v1\/snapshots\/restore/);

    // After the snapshot: the owner deletes a document and writes a new one; the other tenant writes too.
    const deleted = await server.call('DELETE', '/api/v1/documents/d1?permanent=true', owner.token);
    assert.equal(deleted.status, 200, deleted.text);
    // Purging the document with a file deletes the file from the store; the restore puts it back.
    const purged = await server.call('DELETE', '/api/v1/documents/score?permanent=true', owner.token);
    assert.equal(purged.status, 200, purged.text);
    assert.equal((await server.call('GET', '/api/v1/documents/score/file', owner.token)).status, 404);
    assert.equal(
      (await add(owner.token, { id: 'after', content: 'written after', embedding_options: glove })).status,
      201,
    );
    assert.equal(
      (await add(other.token, { id: 'other-after', content: 'still here', embedding_options: glove })).status,
      201,
    );
    const count = async (srv: TestServer, token: string) =>
      ((await srv.call('POST', '/api/v1/documents/count', token, {})).body as { count: number }).count;
    const otherCount = await count(server, other.token);

    // A damaged archive is refused before anything changes.
    const original = await archiveOf(server.dataDir, id);
    await storeArchive(server.dataDir, id, damaged(original));
    const refused = await server.call('POST', '/api/v1/snapshots/restore', owner.token, { snapshot_id: id });
    assert.equal(refused.status, 400, refused.text);
    assert.equal((refused.body as unknown as { error: { code: string } }).error.code, 'SNAPSHOT_CORRUPT');
    const stillAfter = await server.call('GET', '/api/v1/documents/after', owner.token);
    assert.equal(stillAfter.status, 200, 'nothing was restored');
    await storeArchive(server.dataDir, id, original);

    // The restore, while the other tenant keeps searching.
    const restored = await server.call('POST', '/api/v1/snapshots/restore', owner.token, { snapshot_id: id });
    assert.equal(restored.status, 202, restored.text);
    const answer = restored.body as { scope: string; tenants: string[]; job_id: string };
    assert.equal(answer.scope, 'tenant');
    assert.deepEqual(answer.tenants, [owner.tenantId]);
    const searchesMeanwhile = [];
    for (let i = 0; i < 5; i++) {
      searchesMeanwhile.push(server.call('POST', '/api/v1/search/text', other.token, { query: 'marimba' }));
    }
    const restoreJob = await server.finishedJob(owner.token, answer.job_id);
    assert.equal(restoreJob.status, 'done', restoreJob.error);
    if (!provider.s3) {
      // The operation's copy of the archive (issue #38) is gone once the restore ended: nobody else reads it.
      const kept = join(server.dataDir, 'snapshots', 'kept');
      assert.deepEqual(existsSync(kept) ? readdirSync(kept) : [], [], 'no archive copy left behind');
    }
    for (const res of await Promise.all(searchesMeanwhile)) {
      assert.equal(res.status, 200, res.text);
      assert.ok((res.body as unknown as { results: unknown[] }).results.length > 0);
    }

    // The owner's data is the snapshot's: what was deleted since is back, what was written since is gone, every
    // write acknowledged before the snapshot is there.
    const get = (token: string, doc: string) => server.call('GET', `/api/v1/documents/${doc}`, token);
    assert.equal((await get(owner.token, 'd1')).status, 200, 'deleted after the snapshot: restored');
    assert.equal((await get(owner.token, 'after')).status, 404, 'written after the snapshot: gone');
    for (const live of before) assert.equal((await get(owner.token, live)).status, 200, live);
    assert.ok((await count(server, owner.token)) >= docs.length + 1 + before.length);
    const file = await server.call('GET', '/api/v1/documents/score/file', owner.token);
    assert.equal(file.status, 200, file.text);
    assert.equal(file.raw.toString(), attachment.toString());
    // The other tenant is untouched, its writes after the snapshot included.
    assert.equal(await count(server, other.token), otherCount);
    assert.equal((await get(other.token, 'other-after')).status, 200);

    // Every search kind answers, and the vector index came from the snapshot's file, not a rebuild.
    const search = async (kind: string, body: Record<string, unknown>) => {
      const res = await server.call('POST', `/api/v1/search/${kind}`, owner.token, body);
      assert.equal(res.status, 200, `${kind}: ${res.text}`);
      return res.body as { results?: { document_id: string }[]; suggestions?: unknown[] };
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
    const collection = await server.call('GET', '/api/v1/collections/documents', owner.token);
    assert.equal(collection.status, 200, collection.text);
    const stats = (
      collection.body as unknown as { vector_stats: Record<string, { index: string; loaded_from?: string }> }
    ).vector_stats['glove-100'];
    assert.deepEqual(
      { index: stats?.index, loaded_from: stats?.loaded_from },
      { index: 'ready', loaded_from: 'file' },
      'the restored HNSW index was loaded from its file, not rebuilt',
    );
  });

  test('the super admin restores a whole-node snapshot into an empty running node, never into one with data', async () => {
    const { server, env } = run;
    const owner = await server.registerTenant();
    const root = await server.login(superAdmin.email, superAdmin.password);
    const batch = await server.call(
      'POST',
      '/api/v1/documents/batch',
      owner.token,
      Array.from({ length: 2050 }, (_v, i) => ({
        id: `n${i}`,
        content: `${words[i % words.length]} ${words[(i * 5) % words.length]}`,
        embedding_options: glove,
      })),
    );
    assert.equal(batch.status, 200, batch.text);
    await warmVectorIndex(server, owner.token, 'heat transfer');
    const accepted = await server.call('POST', '/api/v1/snapshots', root);
    assert.equal(accepted.status, 202, accepted.text);
    const { snapshot_id: id, job_id: jobId } = accepted.body as { snapshot_id: string; job_id: string };
    assert.equal((await server.finishedJob(root, jobId)).status, 'done');

    // A node with data refuses it.
    const busy = await server.call('POST', '/api/v1/snapshots/restore', root, { snapshot_id: id });
    assert.equal(busy.status, 409, busy.text);
    assert.equal((busy.body as unknown as { error: { code: string } }).error.code, 'SNAPSHOT_NODE_NOT_EMPTY');

    // An empty node on the same snapshot store (the bucket; or a copy of the archive in its DATA_DIR) takes it.
    const fresh = run.closeAfter(await startTestServer(env));
    shareSnapshot(server, fresh, id);
    const freshRoot = await fresh.login(superAdmin.email, superAdmin.password);
    const restored = await fresh.call('POST', '/api/v1/snapshots/restore', freshRoot, { snapshot_id: id });
    assert.equal(restored.status, 202, restored.text);
    const answer = restored.body as { scope: string; tenants: string[]; job_id: string };
    assert.equal(answer.scope, 'node');
    assert.ok(answer.tenants.includes(owner.tenantId));
    const job = await fresh.finishedJob(freshRoot, answer.job_id);
    assert.equal(job.status, 'done', job.error);
    assert.deepEqual(
      readdirSync(join(fresh.dataDir, 'snapshots')).filter((name) => name.startsWith('.restore-')),
      [],
      'its unpacked snapshot is removed once every tenant is restored from it',
    );

    const token = await fresh.login(owner.email, owner.password);
    const got = await fresh.call('GET', '/api/v1/documents/n7', token);
    assert.equal(got.status, 200, got.text);
    const vector = await fresh.call('POST', '/api/v1/search/vector', token, {
      query: 'heat transfer',
      embedding_options: glove,
      threshold: 0,
    });
    assert.equal(vector.status, 200, vector.text);
    assert.ok((vector.body as unknown as { results: unknown[] }).results.length > 0);
    const text = await fresh.call('POST', '/api/v1/search/text', token, { query: 'nozzle' });
    assert.ok((text.body as unknown as { results: unknown[] }).results.length > 0, text.text);
    const info = await fresh.call('GET', '/api/v1/collections/documents', token);
    const stats = (info.body as unknown as { vector_stats: Record<string, { loaded_from?: string }> }).vector_stats[
      'glove-100'
    ];
    assert.equal(stats?.loaded_from, 'file', info.text);

    // With s3, `godb restore s3://bucket/key` reads the same archive straight from the bucket.
    if (provider.s3) {
      const out = capture();
      const err = capture();
      const dataDir = suite.scratch('from-s3-url');
      const code = await restoreCommand(
        [`s3://godb/${suite.prefix}snapshots/${id}.tar`],
        { ...env, DATA_DIR: dataDir },
        out,
        err,
      );
      assert.equal(code, 0, err.text);
      assert.match(out.text, new RegExp(`Restored snapshot ${id}`));
    }
  });
  test('an uploaded archive is checked before it is stored, then restores by its id', async () => {
    const { server } = run;
    const owner = await server.registerTenant();
    const other = await server.registerTenant();
    const batch = await server.call(
      'POST',
      '/api/v1/documents/batch',
      owner.token,
      Array.from({ length: 20 }, (_v, i) => ({
        id: `u${i}`,
        content: `uploaded ${words[i % words.length]}`,
      })),
    );
    assert.equal(batch.status, 200, batch.text);
    const taken = await server.call('POST', '/api/v1/snapshots', owner.token);
    const { snapshot_id: id, job_id: jobId } = taken.body as { snapshot_id: string; job_id: string };
    assert.equal((await server.finishedJob(owner.token, jobId)).status, 'done');
    const archive = (await server.call('GET', `/api/v1/snapshots/${id}`, owner.token)).raw;
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
    assert.equal((await server.call('DELETE', `/api/v1/snapshots/${id}`, owner.token)).status, 200);
    const foreign = await upload(other.token, archive);
    assert.equal(foreign.statusCode, 409, foreign.body);
    assert.equal(codeOf(foreign), 'SNAPSHOT_NOT_RESTORABLE');
    const refused = await upload(owner.token, damaged(archive));
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal(codeOf(refused), 'SNAPSHOT_CORRUPT');
    const notJson = await server.call('POST', '/api/v1/snapshots/upload', owner.token, { snapshot: 'x' });
    assert.equal(notJson.status, 415, notJson.text);
    const listed = (await server.call('GET', '/api/v1/snapshots', owner.token)).body as {
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
    const gone = await server.call('DELETE', '/api/v1/documents/u3?permanent=true', owner.token);
    assert.equal(gone.status, 200, gone.text);
    const restored = await server.call('POST', '/api/v1/snapshots/restore', owner.token, { snapshot_id: id });
    assert.equal(restored.status, 202, restored.text);
    const job = await server.finishedJob(owner.token, restored.body.job_id);
    assert.equal(job.status, 'done', job.error);
    assert.equal((await server.call('GET', '/api/v1/documents/u3', owner.token)).status, 200);
  });

  test('a tenant snapshot restored on another node whose documents use its seqs is renumbered, and answers', async () => {
    const { env } = run;
    const origin = await startTestServer(env);
    const target = await startTestServer(env);
    try {
      const tenant = await origin.registerTenant();
      const batch = await origin.call(
        'POST',
        '/api/v1/documents/batch',
        tenant.token,
        Array.from({ length: 30 }, (_v, i) => ({
          id: `t${i}`,
          content: `${words[i % words.length]} travelling tenant`,
          embedding_options: glove,
        })),
      );
      assert.equal(batch.status, 200, batch.text);
      const taken = await origin.call('POST', '/api/v1/snapshots', tenant.token);
      const { snapshot_id: id, job_id: jobId } = taken.body as { snapshot_id: string; job_id: string };
      assert.equal((await origin.finishedJob(tenant.token, jobId)).status, 'done');

      // The target node's own tenant holds seqs 1…40, which the snapshot's rows use too.
      const resident = await target.registerTenant();
      const own = await target.call(
        'POST',
        '/api/v1/documents/batch',
        resident.token,
        Array.from({ length: 40 }, (_v, i) => ({
          id: `r${i}`,
          content: 'resident rows',
          embedding_options: glove,
        })),
      );
      assert.equal(own.status, 200, own.text);
      shareSnapshot(origin, target, id);
      const root = await target.login(superAdmin.email, superAdmin.password);
      const restored = await target.call('POST', '/api/v1/snapshots/restore', root, { snapshot_id: id });
      assert.equal(restored.status, 202, restored.text);
      const job = await target.finishedJob(root, restored.body.job_id);
      assert.equal(job.status, 'done', job.error);

      // The tenant exists on the target now; the super admin gives it an admin, who finds its documents.
      const admin = await target.call('POST', '/auth/admin/users', root, {
        email: `moved-${tenant.tenantId}@example.com`,
        password: 'password-1234',
        tenant_id: tenant.tenantId,
      });
      assert.equal(admin.status, 201, admin.text);
      const token = await target.login(`moved-${tenant.tenantId}@example.com`, 'password-1234');
      const text = await target.call('POST', '/api/v1/search/text', token, { query: 'travelling', limit: 100 });
      assert.equal((text.body as unknown as { results: unknown[] }).results.length, 30, text.text);
      const vector = await target.call('POST', '/api/v1/search/vector', token, {
        query: 'travelling tenant',
        embedding_options: glove,
        threshold: 0,
        limit: 100,
      });
      const found = (vector.body as unknown as { results: { document_id: string }[] }).results.map(
        (r) => r.document_id,
      );
      assert.equal(found.length, 30, vector.text);
      assert.ok(
        found.every((doc) => doc.startsWith('t')),
        'only the restored tenant’s documents',
      );
      // The resident tenant is untouched.
      const mine = await target.call('POST', '/api/v1/search/text', resident.token, {
        query: 'resident',
        limit: 100,
      });
      assert.equal((mine.body as unknown as { results: unknown[] }).results.length, 40, mine.text);
    } finally {
      await target.close();
      await origin.close();
    }
  });
});
