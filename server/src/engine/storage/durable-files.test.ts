import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { makeFolderDurably, syncFoldersUpTo, syncTree, writeDurably, writeFileDurably } from './durable-files.js';

const dir = mkdtempSync(join(tmpdir(), 'godb-durable-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('durable files', () => {
  it('replaces a file whole, and leaves it as it was when the write fails', async () => {
    const path = join(dir, 'a.bin');
    await writeFileDurably(path, `${path}.tmp-1`, async (file) => void (await file.write('first')));
    assert.equal(readFileSync(path, 'utf8'), 'first');
    await assert.rejects(
      writeFileDurably(path, `${path}.tmp-2`, async (file) => {
        await file.write('half of the sec');
        throw new Error('disk full');
      }),
      /disk full/,
    );
    assert.equal(readFileSync(path, 'utf8'), 'first');
    assert.deepEqual(readdirSync(dir), ['a.bin'], 'no temporary file left');
    writeDurably(path, (tmp) => writeFileSync(tmp, 'third'));
    assert.equal(readFileSync(path, 'utf8'), 'third');
  });

  it('creates missing folders, and leaves existing ones as they are', async () => {
    const nested = join(dir, 'x', 'y', 'z');
    await makeFolderDurably(nested);
    assert.ok(existsSync(nested));
    writeFileSync(join(nested, 'kept'), '1');
    await makeFolderDurably(nested);
    await makeFolderDurably(join(dir, 'x', 'w'));
    assert.deepEqual(readdirSync(join(dir, 'x')).sort(), ['w', 'y']);
    assert.equal(readFileSync(join(nested, 'kept'), 'utf8'), '1');
  });

  it('syncs a tree and the folders up to a top without changing them; concurrent creations all succeed', async () => {
    const top = join(dir, 'tree');
    await Promise.all(['a/b/c', 'a/b/d', 'a/e', 'a/b/c/'].map((p) => makeFolderDurably(join(top, p))));
    writeFileSync(join(top, 'a', 'b', 'c', 'f'), 'x');
    await syncTree(top);
    await syncFoldersUpTo(join(top, 'a', 'b', 'c'), dir);
    assert.deepEqual(readdirSync(join(top, 'a')).sort(), ['b', 'e']);
    assert.equal(readFileSync(join(top, 'a', 'b', 'c', 'f'), 'utf8'), 'x');
  });
});
