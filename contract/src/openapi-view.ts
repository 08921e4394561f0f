import type { TSchema } from '@sinclair/typebox';

/** Where a schema keeps the JSON schema the OpenAPI document shows in its place (see publishedAs). */
export const openApiView = Symbol.for('godb.openapi-view');

/**
 * `schema`, shown in the OpenAPI document as `view`. For a field the server validates loosely on purpose (its use
 * case answers the precise error, as INVALID_VECTOR_FORMAT for a query vector), while clients need its type. The
 * server keeps validating with `schema`, so what it accepts does not change.
 */
export function publishedAs<T extends TSchema>(schema: T, view: Readonly<Record<string, unknown>>): T {
  return Object.assign(schema, { [openApiView]: view });
}
