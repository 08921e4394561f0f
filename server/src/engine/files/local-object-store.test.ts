import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { LocalObjectStore } from './local-object-store.js';

const text = async (store: LocalObjectStore, key: string) => {
  const found = await store.get(key);
  if (!found) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of found.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
};

test('a put and a delete of the last other object in its folder, at once, never lose the put', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'godb-object-store-'));
  try {
    const store = new LocalObjectStore(join(dir, 'files'));
    // Each round: the folder holds one object; another is put into it while that one is deleted, which empties
    // the folder and removes it (a put used to write its temporary file there, and failed with ENOENT).
    for (let round = 0; round < 200; round += 1) {
      const folder = `tenant/doc-${round % 3}`;
      await store.put(`${folder}/old`, Buffer.from('old'));
      const body = round % 2 === 0 ? Buffer.from(`new ${round}`) : Readable.from([Buffer.from(`new ${round}`)]);
      // The delete first: its rmdir then races the put's write (the old code lost about one put in 200 here).
      await Promise.all([store.delete([`${folder}/old`]), store.put(`${folder}/new`, body)]);
      assert.equal(await text(store, `${folder}/new`), `new ${round}`);
      assert.equal(await store.has(`${folder}/old`), false);
      await store.delete([`${folder}/new`]);
    }
    assert.deepEqual(await store.list(), []);
    assert.deepEqual(readdirSync(join(dir, 'files')), [], 'no temporary file left, every emptied folder removed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a failed put leaves no temporary file, no folder, and answers STORAGE_UNAVAILABLE', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'godb-object-store-'));
  try {
    const store = new LocalObjectStore(join(dir, 'files'));
    const failing = new Readable({
      read() {
        this.destroy(new Error('the client went away'));
      },
    });
    await assert.rejects(store.put('tenant/doc/file', failing), { code: 'STORAGE_UNAVAILABLE' });
    assert.deepEqual(readdirSync(join(dir, 'files')), []);
    assert.equal(await store.has('tenant/doc/file'), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a copy holds the same bytes, and outlives the object it was copied from', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'godb-object-store-'));
  try {
    const store = new LocalObjectStore(join(dir, 'snapshots'));
    await store.put('snap-1.tar', Buffer.from('the archive'));
    await store.copy('snap-1.tar', 'kept/snap-1-copy.tar');
    assert.equal(await text(store, 'kept/snap-1-copy.tar'), 'the archive');
    await store.delete(['snap-1.tar']);
    assert.equal(await text(store, 'kept/snap-1-copy.tar'), 'the archive');
    // A put over the original's name makes a new file: the copy keeps the old bytes.
    await store.copy('kept/snap-1-copy.tar', 'snap-1.tar');
    await store.put('snap-1.tar', Buffer.from('another archive'));
    assert.equal(await text(store, 'kept/snap-1-copy.tar'), 'the archive');
    await assert.rejects(store.copy('missing.tar', 'kept/x.tar'), { code: 'STORAGE_UNAVAILABLE' });
    assert.deepEqual(readdirSync(join(dir, 'snapshots')).sort(), ['kept', 'snap-1.tar'], 'no temporary file left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
