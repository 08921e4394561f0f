import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isGoDBError } from '@godb/contract';
import { sharedModelCacheDir } from '../../test-support/model-cache.js';
import { Embedder, defaultEmbedOptions } from './embedder.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(cosine(a, a));

let embedder: Embedder;
let modelsDir: string;

before(() => {
  modelsDir = mkdtempSync(join(tmpdir(), 'godb-models-'));
  embedder = new Embedder({
    defaultModel: 'mxbai-embed-large-v1',
    modelsDir,
    modelCacheDir: sharedModelCacheDir,
    workerPoolSize: 2,
    queueLimit: 100,
    cacheSize: 100,
    remote: [],
    http: { timeoutMs: 1000, retries: 0, sleep: async () => {} },
  });
});
after(async () => {
  await embedder.close();
  rmSync(modelsDir, { recursive: true, force: true });
});

const paraphrase = ['The cat sat on the mat.', 'A kitten was resting on the rug.'];
const unrelated = 'Quarterly earnings of the bank fell sharply.';

for (const model of ['use-lite-512', 'glove-100'] as const) {
  describe(model, () => {
    test('a paraphrase is closer than an unrelated sentence; vectors are unit length of the right size', async () => {
      const [a, b, c] = await embedder.embed(model, [...paraphrase, unrelated]);
      assert.ok(a && b && c);
      const dims = model === 'use-lite-512' ? 512 : 100;
      assert.equal(a.vector.length, dims);
      for (const e of [a, b, c]) assert.ok(Math.abs(norm(e.vector) - 1) < 1e-4);
      const close = cosine(a.vector, b.vector);
      const far = cosine(a.vector, c.vector);
      assert.ok(close > far + 0.1, `paraphrase ${close.toFixed(3)} vs unrelated ${far.toFixed(3)}`);
      assert.ok(a.tokenCount > 0);
    });

    test('a long text is windowed and pooled into one unit vector', async () => {
      const long = Array.from({ length: 60 }, (_v, i) => `Sentence ${i} is about supersonic boundary layers.`).join(
        ' ',
      );
      const [e] = await embedder.embed(model, [long], { ...defaultEmbedOptions, maxTokens: 64, overlap: 8 });
      assert.ok(e);
      assert.ok(Math.abs(norm(e.vector) - 1) < 1e-4);
      const [short] = await embedder.embed(model, ['supersonic boundary layers']);
      assert.ok(cosine(e.vector, short!.vector) > 0.3);
      assert.ok(e.tokenCount >= 400);
    });
  });
}

test('use-lite batches: 40 texts embed in order, each equal to its single embedding', async () => {
  const texts = Array.from({ length: 40 }, (_v, i) => `document number ${i} about topic ${i % 7}`);
  const batch = await embedder.embed('use-lite-512', texts, { ...defaultEmbedOptions, normalize: false });
  const single = await embedder.embed('use-lite-512', [texts[17]!], {
    ...defaultEmbedOptions,
    normalize: false,
    maxTokens: 511,
  });
  assert.equal(batch.length, 40);
  assert.ok(cosine(batch[17]!.vector, single[0]!.vector) > 0.999);
});

test('the cache answers repeated texts', async () => {
  const before = embedder.cacheStats().hits;
  await embedder.embed('glove-100', ['cache me']);
  await embedder.embed('glove-100', ['cache me']);
  assert.equal(embedder.cacheStats().hits, before + 1);
});

test('models: only usable ones are listed; the absent spec default falls back to use-lite-512 with a note', () => {
  const { models, defaultModel, notes } = embedder.listModels();
  assert.deepEqual(
    models.map((m) => m.name),
    ['use-lite-512', 'glove-100'],
  );
  assert.equal(defaultModel, 'use-lite-512');
  assert.match(notes[0] ?? '', /mxbai-embed-large-v1 is not installed/);
  assert.equal(embedder.resolve().name, 'use-lite-512');
});

test('an unknown model is a 400 naming the folder to create and the available models', () => {
  assert.throws(
    () => embedder.resolve('mxbai-embed-large-v1'),
    (e: unknown) =>
      isGoDBError(e) &&
      e.status === 400 &&
      e.code === 'MODEL_NOT_AVAILABLE' &&
      // The folder is named by its setting, never by the server's install path (issue #22).
      e.message.includes('MODELS_DIR/mxbai-embed-large-v1/') &&
      !e.message.includes(modelsDir) &&
      e.message.includes('Available models: use-lite-512, glove-100'),
  );
});

test('a bring-your-own folder is listed from its config and a broken one fails with a clear 503', async () => {
  const folder = join(modelsDir, 'broken-model');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'config.json'), JSON.stringify({ hidden_size: 384, model_type: 'bert' }));
  const listed = embedder.listModels().models.find((m) => m.name === 'broken-model');
  assert.deepEqual(listed && [listed.provider, listed.dimensions], ['local-onnx', 384]);
  await assert.rejects(
    embedder.embed('broken-model', ['hello']),
    (e: unknown) => isGoDBError(e) && e.code === 'MODEL_LOAD_FAILED' && e.status === 503,
  );
  rmSync(folder, { recursive: true });
});
