import type { CatalogueOperation } from '@godb/contract';
import type { InjectOptions } from 'fastify';

/**
 * The request of an operation's first catalogue example, for `app.inject()`, at its path or at `path` (an alias),
 * as `token`'s bearer, with `headers` and `query` besides the example's. A streamed body (NDJSON, a tar) is one line
 * or a few bytes of its type: enough to reach the route's handler.
 *
 * @example await server.app.inject(exampleRequest(operation, { token, headers: { 'x-godb-consistency': 'strong' } }));
 */
export function exampleRequest(
  operation: CatalogueOperation,
  options: {
    token?: string;
    path?: string;
    headers?: Record<string, string>;
    query?: Record<string, string>;
  } = {},
): InjectOptions {
  const example = operation.examples[0];
  let url = options.path ?? operation.http.path;
  for (const [name, value] of Object.entries(example?.params ?? {})) {
    url = url.replace(`{${name}}`, encodeURIComponent(value));
  }
  const query = {
    ...Object.fromEntries(Object.entries(example?.query ?? {}).map(([k, v]) => [k, String(v)])),
    ...options.query,
  };
  const headers: Record<string, string> = {
    ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }),
    ...options.headers,
  };
  const body = operation.ndjson
    ? { payload: '{"id":"example-line","content":"One line."}\n', type: 'application/x-ndjson' }
    : operation.binary
      ? { payload: Buffer.from('not a tar archive'), type: operation.binary.contentType }
      : example?.body !== undefined
        ? { payload: JSON.stringify(example.body), type: 'application/json' }
        : undefined;
  if (body) headers['content-type'] = body.type;
  return {
    method: operation.http.method,
    url,
    query,
    headers,
    ...(body && { payload: body.payload }),
  };
}
