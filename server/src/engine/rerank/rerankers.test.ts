import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rerankers } from './rerankers.js';

// Review of 0060: RERANK_MODELS_DIR's listing is cached, read again when the folder changes (its mtime) and for a
// name the cached listing lacks, so a folder dropped in still needs no restart and a folder removed is not offered.

const notAvailable = (error: { code?: string }) => error.code === 'RERANK_MODEL_NOT_AVAILABLE';

test('folders added and removed are seen without a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'godb-rerankers-'));
  try {
    const rerankers = new Rerankers({ modelsDir: dir, timeoutMs: 1000 });
    assert.deepEqual(rerankers.names(), []);
    assert.throws(() => rerankers.resolve('a'), notAvailable);
    mkdirSync(join(dir, 'a'));
    writeFileSync(join(dir, 'a', 'tokenizer.json'), '{}');
    assert.equal(rerankers.resolve('a').name, 'a');
    // A folder made first and filled later does not change the parent's mtime: found all the same.
    mkdirSync(join(dir, 'b'));
    assert.deepEqual(rerankers.names(), ['a']);
    writeFileSync(join(dir, 'b', 'tokenizer.json'), '{}');
    assert.equal(rerankers.resolve('b').name, 'b');
    assert.deepEqual(rerankers.names(), ['a', 'b']);
    rmSync(join(dir, 'a'), { recursive: true });
    // The removal's mtime, made distinct: the file system's clock may not have ticked since the last listing.
    utimesSync(dir, new Date(2001, 0, 1), new Date(2001, 0, 1));
    assert.deepEqual(rerankers.names(), ['b']);
    assert.throws(() => rerankers.resolve('a'), notAvailable);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
