import type { IncomingHttpHeaders } from 'node:http';
import type { Credentials } from '../../service/auth/authenticate.js';

/** A call's credentials: `Authorization: Bearer <token or key>` or `api-key: <key>`. */
export function credentialsOf(headers: IncomingHttpHeaders): Credentials {
  const apiKey = headers['api-key'];
  return {
    authorization: headers.authorization,
    // Node joins a repeated header with ", ", which no key matches: it is refused like any invalid key.
    apiKey: Array.isArray(apiKey) ? apiKey.join(', ') : apiKey,
  };
}
