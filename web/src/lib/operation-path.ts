import type { CatalogueOperation } from '@godb/contract';

/** The /api/v1 form of an operation's path (the site calls those). */
export function apiV1Path(op: CatalogueOperation): string {
  return [op.http.path, ...op.http.aliases].find((p) => p.startsWith('/api/')) ?? op.http.path;
}

/**
 * The path of an operation with its parameters substituted, e.g. `/api/v1/auth/api-keys/k%201`.
 *
 * @example operationPath(operationById('revoke-api-key'), { keyID: 'k 1' }) // '/api/v1/auth/api-keys/k%201'
 */
export function operationPath(op: CatalogueOperation, params: Readonly<Record<string, string>> = {}): string {
  return apiV1Path(op).replace(/\{(\w+)\}/g, (whole, name: string) =>
    params[name] === undefined ? whole : encodeURIComponent(params[name]),
  );
}
