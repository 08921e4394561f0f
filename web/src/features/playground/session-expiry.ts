import { errorCatalogue, type ErrorCode } from '@godb/contract/errors';

/** The catalogue's codes that mean "your credentials are not accepted": every code answered with HTTP 401. */
const unauthenticatedCodes: ReadonlySet<string> = new Set(
  (Object.keys(errorCatalogue) as ErrorCode[]).filter((code) => errorCatalogue[code].http === 401),
);

/**
 * Whether an API answer ends the session (site-spec §6: a response message containing 401 or Unauthorized logs
 * the visitor out). Decided on the answer's status and error code, never on its text: request ids are random
 * UUIDs and user data such as a document id `report-401` appear in messages, and neither means the session is over.
 *
 * @example endsSession(401, { error: { code: 'UNAUTHORIZED' } }) // true
 * @example endsSession(404, { error: { code: 'NOT_FOUND', message: 'Document report-401 not found' } }) // false
 */
export function endsSession(status: number, body: unknown): boolean {
  if (status !== 401) return false;
  const code =
    typeof body === 'object' && body !== null && 'error' in body
      ? (body as { error?: { code?: unknown } }).error?.code
      : undefined;
  // A 401 without GoDB's error shape (a proxy in front of the server) still means the token was refused.
  return typeof code !== 'string' || unauthenticatedCodes.has(code);
}
