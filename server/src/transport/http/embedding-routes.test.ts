import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../../test-support/file-server.js';

const file = serverForFile();
const post = (url: string, payload: Record<string, unknown>) =>
  file.server.call('POST', url, file.admin.token, payload);

test('GET /api/v1/embeddings/models lists the usable models and the effective default', async () => {
  const res = await file.server.call('GET', '/api/v1/embeddings/models', file.admin.token);
  assert.equal(res.status, 200);
  const body = res.body as unknown as {
    models: string[];
    default_model: string;
    details: { name: string; dimensions: number; default: boolean }[];
    notes: string[];
  };
  assert.deepEqual(body.models, ['use-lite-512', 'glove-100']);
  assert.equal(body.default_model, 'use-lite-512');
  assert.deepEqual(
    body.details.map((d) => [d.name, d.dimensions, d.default]),
    [
      ['use-lite-512', 512, true],
      ['glove-100', 100, false],
    ],
  );
  assert.match(body.notes[0] ?? '', /mxbai-embed-large-v1 is not installed/);
  assert.equal((await file.server.call('GET', '/embeddings/models')).status, 401);
});

test('POST /embeddings embeds text and original_text with the default model', async () => {
  const res = await post('/embeddings', {
    text: 'hypersonic flow over a cone',
    original_text: 'flow around a cone at high speed',
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.model_name, 'use-lite-512');
  assert.equal(res.body.dimensions, 512);
  assert.equal((res.body.content_embedding as number[]).length, 512);
  assert.equal((res.body.original_text_embedding as number[]).length, 512);
  assert.ok((res.body.token_count as number) > 0);
  assert.equal(typeof res.body.processing_time_ms, 'number');
});

test('POST /api/v1/embeddings honours model_name and the preprocessing options', async () => {
  const res = await post('/api/v1/embeddings', {
    model_name: 'glove-100',
    text: 'boundary layer',
    embedding_options: { preprocessing: { normalize: false, max_tokens: 64 } },
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.dimensions, 100);
  assert.equal(res.body.token_count, 2);
  const viaOptions = await post('/api/v1/embeddings', {
    text: 'boundary layer',
    embedding_options: { model_name: 'glove-100' },
  });
  assert.equal(viaOptions.body.model_name, 'glove-100');
});

test('empty text, unknown model and bad options are 400s that say what to do, never 500', async () => {
  const blank = await post('/embeddings', { text: '   ' });
  assert.equal(blank.status, 400);
  assert.equal(blank.body.error?.code, 'EMPTY_TEXT');
  assert.equal(blank.body.error?.field, 'body.text');

  const missing = await post('/embeddings', { model_name: 'mxbai-embed-large-v1', text: 'hello' });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error?.code, 'MODEL_NOT_AVAILABLE');
  assert.match(
    missing.body.error?.message ?? '',
    /put its files \(config\.json, tokenizer\.json, onnx\/model\.onnx\) in MODELS_DIR\/mxbai-embed-large-v1\//,
  );
  assert.match(missing.body.error?.message ?? '', /Available models: use-lite-512, glove-100/);

  const method = await post('/embeddings/quantized', { text: 'x', method: 'pq', bit_width: 8 });
  assert.equal(method.status, 400);
  assert.equal(method.body.error?.field, 'body.method');
  assert.match(method.body.error?.message ?? '', /linear, kmeans, binary/);

  const bits = await post('/embeddings/quantized', { text: 'x', method: 'linear', bit_width: 3 });
  assert.equal(bits.status, 400);
  assert.match(bits.body.error?.message ?? '', /4, 8, 16/);
});

test('POST /embeddings/quantized: every method and bit width, with exact compression ratios', async () => {
  for (const method of ['linear', 'kmeans', 'binary'] as const) {
    for (const bitWidth of [4, 8, 16]) {
      const res = await post('/api/v1/embeddings/quantized', {
        model_name: 'glove-100',
        text: 'shock wave',
        method,
        bit_width: bitWidth,
      });
      assert.equal(res.status, 200, `${method}/${bitWidth}: ${JSON.stringify(res.body.error)}`);
      const info = res.body.quantization_info as {
        method: string;
        bit_width: number;
        min_val: number;
        max_val: number;
        codebook?: number[];
      };
      const codes = res.body.quantized_vector as number[];
      assert.equal(codes.length, 100);
      assert.equal(info.method, method);
      const effectiveBits = method === 'binary' ? 1 : bitWidth;
      assert.equal(info.bit_width, effectiveBits);
      assert.equal(res.body.compression_ratio, 32 / effectiveBits);
      assert.ok(codes.every((c) => Number.isInteger(c) && c >= 0 && c < 2 ** effectiveBits));
      assert.ok(info.min_val <= info.max_val);
      assert.equal(typeof res.body.reconstruction_error, 'number');
      if (method === 'kmeans') assert.ok((info.codebook ?? []).length <= Math.min(256, 2 ** bitWidth));
    }
  }
  const defaults = await post('/embeddings/quantized', { model_name: 'glove-100', text: 'shock wave' });
  assert.equal((defaults.body.quantization_info as { method: string }).method, 'kmeans');
  assert.equal((defaults.body.quantization_info as { bit_width: number }).bit_width, 8);
});
