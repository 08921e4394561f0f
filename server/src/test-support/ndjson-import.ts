import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { bearer, type TestServer } from './server.js';

/** One line of an NDJSON import's answer. */
export interface LineResult {
  line: number;
  success: boolean;
  document_id?: string;
  error?: { code: string; message: string; field?: string };
}

/**
 * POSTs a streamed (chunked) body and reads the answer line by line as it arrives, calling `onLine` for each.
 *
 * @example await postStream(`${base}/api/v1/documents/import`, token, Readable.from(lines), (l) => seen.push(l));
 */
export function postStream(
  url: string,
  token: string,
  body: Readable,
  onLine: (line: string) => void,
  contentType = 'application/x-ndjson',
): Promise<{ status: number; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': contentType, 'transfer-encoding': 'chunked' },
    });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      const lines = createInterface({ input: res, crlfDelay: Infinity });
      lines.on('line', (line) => line !== '' && onLine(line));
      lines.on('close', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] }));
      res.on('error', reject);
    });
    body.on('error', reject);
    body.pipe(req);
  });
}

/**
 * Makes `server` listen on a real port and gives it a tenant with the collection `vecs`, whose documents carry their
 * own 4-dimension vectors `v` (no embedding model: an import test measures the import, not a model).
 */
export async function vectorsTenant(server: TestServer): Promise<{ token: string; base: string }> {
  const { token } = await server.registerTenant();
  const base = await server.listen();
  const created = await server.call('POST', '/api/v1/collections', token, {
    name: 'vecs',
    vectors: { v: { dimensions: 4 } },
  });
  assert.equal(created.status, 201, created.text);
  return { token, base };
}
