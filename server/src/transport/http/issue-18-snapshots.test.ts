import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { restoreCommand } from '../../restore-command.js';
import { startTestServer, superAdmin } from '../../test-support/server.js';
import { aeroWords as words, glove, warmVectorIndex } from '../../test-support/glove-documents.js';
import { keepWriting } from '../../test-support/keep-writing.js';
import { capture, damaged, snapshotSuite } from '../../test-support/snapshots.js';

/**
 * Issue #18, snapshots: a super admin snapshots a live node while writes go on, lists, downloads and deletes
 * snapshots; `godb restore` puts one into an empty data folder, refusing a damaged one without changing
 * anything; the restored node holds every write acknowledged before the snapshot, searchable by every kind of
 * search. The same with the `internal` provider (DATA_DIR/snapshots) and with `s3` against a real Swift.
 */

const attachment = Buffer.from('%PDF-1.7 the quartet’s score');
/** A word of its own for each live write, e.g. `tagbcd`, so a keyword search can single it out. */
const tag = (i: number) => `tag${[...i.toString(10)].map((d) => 'abcdefghij'[Number(d)]).join('')}`;

const suite = snapshotSuite('snapshots');
suite.eachProvider('issue 18: snapshots', (provider, run) => {
  test('a snapshot taken during writes restores into a fresh folder with every acknowledged write searchable', async () => {
    const { server, env } = run;
    const owner = await server.registerTenant();
    const other = await server.registerTenant();
    const root = await server.login(superAdmin.email, superAdmin.password);
    const docs = Array.from({ length: 2100 }, (_v, i) => ({
      id: `d${i}`,
      content: `${words[i % words.length]} ${words[(i * 7) % words.length]} ${words[(i * 11) % words.length]}`,
      metadata: { n: i },
      embedding_options: glove,
    }));
    const batch = await server.call('POST', '/api/v1/documents/batch', owner.token, docs);
    assert.equal(batch.status, 200, batch.text);
    await server.call('POST', '/api/v1/documents', other.token, {
      id: 'theirs',
      content: 'xylophone quartet',
      embedding_options: glove,
      file_content: attachment.toString('base64'),
    });
    // A vector search builds the index, so the snapshot carries an index file.
    await warmVectorIndex(server, owner.token, 'shock wave');

    // Writes keep coming while the snapshot is taken.
    const writer = keepWriting(async (i) => {
      const res = await server.call('POST', '/api/v1/documents', owner.token, {
        id: `live${i}`,
        content: `zeppelin hangar ${tag(i)}`,
        metadata: { live: i },
        embedding_options: glove,
      });
      assert.equal(res.status, 201, res.text);
      return `live${i}`;
    });
    await writer.acknowledgedAtLeast(5);

    // Only admins take snapshots: a member of the tenant may not (its admin snapshots the tenant alone).
    const member = await server.addUser(owner);
    const refused = await server.call('POST', '/api/v1/snapshots', member.token);
    assert.equal(refused.status, 403, refused.text);

    const before = [...writer.acknowledged];
    const started = performance.now();
    const accepted = await server.call('POST', '/api/v1/snapshots', root);
    assert.equal(accepted.status, 202, accepted.text);
    const { snapshot_id: id, job_id: jobId } = accepted.body as { snapshot_id: string; job_id: string };
    const job = await server.finishedJob(root, jobId);
    const snapshotMs = performance.now() - started;
    await writer.stop();
    assert.equal(job.status, 'done', job.error);
    assert.equal(job.processed, job.total);

    const listed = await server.call('GET', '/api/v1/snapshots', root);
    assert.equal(listed.status, 200, listed.text);
    const snapshots = (
      listed.body as unknown as { snapshots: { id: string; files: { path: string }[]; bytes: number }[] }
    ).snapshots;
    const mine = snapshots.find((s) => s.id === id);
    assert.ok(mine, listed.text);
    assert.ok(mine.files.some((f) => f.path === 'godb.sqlite'));
    assert.ok(
      mine.files.some((f) => f.path.startsWith('vectors/')),
      `the index file: ${JSON.stringify(mine.files)}`,
    );
    assert.ok(
      mine.files.some((f) => f.path.startsWith('files/')),
      'the file uploaded with a document',
    );
    // A tenant admin sees only its tenant's snapshots, never the node's.
    const tenantList = await server.call('GET', '/api/v1/snapshots', owner.token);
    assert.equal(tenantList.status, 200, tenantList.text);
    assert.ok(!(tenantList.body as unknown as { snapshots: { id: string }[] }).snapshots.some((s) => s.id === id));
    assert.equal((await server.call('GET', `/api/v1/snapshots/${id}`, owner.token)).status, 404);

    const download = await server.call('GET', `/api/v1/snapshots/${id}`, root);
    assert.equal(download.status, 200);
    assert.equal(download.headers['content-type'], 'application/x-tar');
    const archive = download.raw;
    assert.ok(archive.length >= mine.bytes);

    // A damaged copy is refused and leaves its target folder as it was.
    const damagedFile = suite.scratch(`${id}-damaged.tar`);
    writeFileSync(damagedFile, damaged(archive));
    const refusedDir = suite.scratch(`refused-${provider.name.slice(0, 2)}`);
    const err = capture();
    const code = await restoreCommand([damagedFile], { ...env, DATA_DIR: refusedDir }, capture(), err);
    assert.equal(code, 1, err.text);
    assert.match(err.text, /damaged and was not restored: .*(checksum|bytes|tar)/);
    assert.deepEqual(existsSync(refusedDir) ? readdirSync(refusedDir) : [], []);

    // The downloaded archive (or, with s3, the id in the bucket) restores into a fresh folder.
    const file = suite.scratch(`${id}.tar`);
    writeFileSync(file, archive);
    const dataDir = suite.scratch(`restored-${provider.name.slice(0, 2)}`);
    const out = capture();
    const restoreStarted = performance.now();
    const restoredCode = await restoreCommand(
      [provider.name === 'internal' ? file : id],
      { ...env, DATA_DIR: dataDir },
      out,
      err,
    );
    const restoreMs = performance.now() - restoreStarted;
    assert.equal(restoredCode, 0, err.text);
    assert.match(out.text, new RegExp(`Restored snapshot ${id}`));
    process.stdout.write(
      `# ${provider.name}: snapshot of ${docs.length + before.length + 1}+ documents (${archive.length} bytes) in ${snapshotMs.toFixed(0)} ms, restored in ${restoreMs.toFixed(0)} ms\n`,
    );

    // Restoring over a node that has data is refused.
    const again = capture();
    assert.equal(await restoreCommand([file], { ...env, DATA_DIR: dataDir }, capture(), again), 1);
    assert.match(again.text, /already holds a database/);

    const node = run.closeAfter(await startTestServer({ ...env, DATA_DIR: dataDir }));
    const token = await node.login(owner.email, owner.password);
    const count = await node.call('POST', '/api/v1/documents/count', token, {});
    assert.ok((count.body as unknown as { count: number }).count >= docs.length + before.length, count.text);
    for (const live of before) {
      const got = await node.call('GET', `/api/v1/documents/${live}`, token);
      assert.equal(got.status, 200, `${live} was acknowledged before the snapshot: ${got.text}`);
    }
    const search = async (kind: string, body: Record<string, unknown>) => {
      const res = await node.call('POST', `/api/v1/search/${kind}`, token, body);
      assert.equal(res.status, 200, `${kind}: ${res.text}`);
      return (res.body as unknown as { results: { document_id: string }[] }).results.map((r) => r.document_id);
    };
    const firstLive = 0;
    const only = [{ field: 'metadata.live', operator: 'eq', value: firstLive }];
    assert.deepEqual(await search('text', { query: tag(firstLive), limit: 10 }), [`live${firstLive}`]);
    assert.ok((await search('fuzzy', { query: `${tag(firstLive)}x`, limit: 10 })).includes(`live${firstLive}`));
    for (const kind of ['vector', 'hybrid']) {
      const found = await search(kind, {
        query: 'zeppelin hangar',
        filters: only,
        ...(kind === 'vector' && { threshold: 0 }),
      });
      assert.deepEqual(found, [`live${firstLive}`], kind);
    }
    assert.ok(
      (await search('vector', { query: 'shock wave', embedding_options: glove, limit: 10, threshold: 0 })).length > 0,
    );
    // The other tenant's data came back too, and stays its own.
    const theirs = await node.login(other.email, other.password);
    assert.equal((await node.call('GET', '/api/v1/documents/theirs', theirs)).status, 200);
    assert.equal((await node.call('GET', '/api/v1/documents/theirs', token)).status, 404);
    // With the file uploaded with it.
    const upload = await node.call('GET', '/api/v1/documents/theirs/file', theirs);
    assert.equal(upload.status, 200, upload.text);
    assert.equal(upload.raw.toString(), attachment.toString());

    // Deleting a snapshot removes it from the list and from download.
    const deleted = await server.call('DELETE', `/api/v1/snapshots/${id}`, root);
    assert.equal(deleted.status, 200, deleted.text);
    const gone = await server.call('GET', `/api/v1/snapshots/${id}`, root);
    assert.equal(gone.status, 404);
    const relisted = (await server.call('GET', '/api/v1/snapshots', root)).body as {
      snapshots: { id: string }[];
    };
    assert.ok(!relisted.snapshots.some((s) => s.id === id));
  });
});
