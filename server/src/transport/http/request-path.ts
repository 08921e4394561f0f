/**
 * The path of a request target as the client sent it: not normalised, without the query string, and without the
 * scheme and host of an absolute-form target (`GET http://host/api/v1/x HTTP/1.1`, which Node and Fastify route
 * like `/api/v1/x`: deciding on the raw text would let such a request skip the API's guards).
 *
 * @example requestPath('http://x/api/v1/jobs/1?a=b') // '/api/v1/jobs/1'
 */
export function requestPath(url: string | undefined): string {
  const path = ((url ?? '/').split('?')[0] ?? '').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  return path === '' ? '/' : path;
}
