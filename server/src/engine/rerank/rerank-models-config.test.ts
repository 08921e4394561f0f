import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRerankModels } from './rerank-models-config.js';

// Review of 0060: RERANK_API_KEY reaches only the RERANK_MODELS entries RERANK_API_KEY_MODELS names; a key with no
// model to receive it, or a named model that is not configured, stops the server naming the setting.

const models = 'local=tei:http://127.0.0.1:8080,hosted=cohere:https://api.cohere.com';

test('the key goes to the named entries only', () => {
  const configs = parseRerankModels(models, { apiKey: 'k', models: 'hosted' });
  assert.deepEqual(
    configs.map((c) => [c.name, c.apiKey]),
    [
      ['local', undefined],
      ['hosted', 'k'],
    ],
  );
  assert.deepEqual(
    parseRerankModels(models).map((c) => c.apiKey),
    [undefined, undefined],
  );
});

test('a key without models, models without a key, or an unknown model stop the server', () => {
  assert.throws(() => parseRerankModels(models, { apiKey: 'k', models: '' }), /RERANK_API_KEY_MODELS names no model/);
  assert.throws(() => parseRerankModels(models, { apiKey: '', models: 'hosted' }), /RERANK_API_KEY is empty/);
  assert.throws(
    () => parseRerankModels(models, { apiKey: 'k', models: 'hosted, other' }),
    /RERANK_API_KEY_MODELS names other, which RERANK_MODELS does not configure/,
  );
});
