import assert from 'node:assert/strict';
import type { TestServer } from './server.js';

/** The words the glove-100 tests' documents are written in, e.g. `${aeroWords[i % aeroWords.length]}`. */
export const aeroWords =
  'shock wave boundary layer heat transfer wing lift drag nozzle flow vortex panel shell stress'.split(' ');
export const glove = { model_name: 'glove-100' };

/** A vector search as `token`'s user, which loads (or builds) its HNSW index, so a snapshot carries its file. */
export async function warmVectorIndex(server: TestServer, token: string, query: string): Promise<void> {
  const warm = await server.call('POST', '/api/v1/search/vector', token, {
    query,
    embedding_options: glove,
    threshold: 0,
  });
  assert.equal(warm.status, 200, warm.text);
}
