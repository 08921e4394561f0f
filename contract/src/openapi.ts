import type { TSchema } from '@sinclair/typebox';
import { commonErrors, authErrors, tenantDataCategories, type OperationSpec } from './define-operation.js';
import { clusterHandling, idempotencyKeyHeader } from './cluster.js';
import { consistencyHeader, minSeqHeader, sequenceHeader } from './cluster-headers.js';
import { marksStale, staleHeader } from './cluster.js';
import type { OperationId } from './catalogue.js';
import { errorCatalogue, type ErrorCode } from './errors.js';
import { canonical, extractComponents, namedSchemas, type SchemaSite, type SchemaView } from './openapi-components.js';
import { openApiView } from './openapi-view.js';
import { ErrorBody } from './schemas/common.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/** Keywords whose values map names to schemas (not schemas themselves). */
const schemaMaps = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose values are data, left as they are. */
const dataKeywords = new Set(['default', 'examples', 'example', 'enum', 'const', 'required']);

/**
 * A JSON schema as OpenAPI 3.1 reads it (JSON Schema 2020-12), from the draft-07 TypeBox emits for the server's Ajv:
 * a tuple's `items: [..]` + `additionalItems` is `prefixItems` + `items`; an `allOf` of equal parts (TypeBox's
 * Composite of two equal fields) is that part.
 */
function to2020(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(to2020);
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (dataKeywords.has(key)) out[key] = value;
    else if (schemaMaps.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, to2020(child)]));
    } else out[key] = to2020(value);
  }
  if (Array.isArray(out.items)) {
    const { items, additionalItems, ...rest } = out;
    return { ...rest, prefixItems: items, ...(additionalItems !== undefined && { items: additionalItems }) };
  }
  const parts = out.allOf;
  if (Array.isArray(parts) && parts.length > 0 && parts.every((p) => canonical(p) === canonical(parts[0]))) {
    const { allOf: _allOf, ...rest } = out;
    const part = parts[0] as Json;
    if (Object.keys(part).every((key) => !(key in rest) || canonical(rest[key]) === canonical(part[key]))) {
      return { ...part, ...rest };
    }
    return { ...rest, allOf: [part] };
  }
  return out;
}

/**
 * A TypeBox schema as the document shows it: without TypeBox's symbol keys and `$id`s (a JSON round trip), each
 * part published with a view of its own (publishedAs) shown as that view, in JSON Schema 2020-12.
 */
function plain(schema: TSchema): Json {
  const text = JSON.stringify(schema, (key, value: unknown) => {
    if (key === '$id') return undefined;
    return isObject(value) && openApiView in value ? (value as Record<symbol, unknown>)[openApiView] : value;
  });
  return to2020(JSON.parse(text)) as Json;
}

/**
 * A request schema as the caller sees it: a property with a default is filled in by the server, so it is not
 * required from the caller (AJV's useDefaults fills it before the `required` check).
 */
function callerSchema(schema: TSchema): Json {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (!node || typeof node !== 'object') return node;
    const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, strip(v)])) as Json;
    const properties = out.properties as Record<string, Json> | undefined;
    if (properties && Array.isArray(out.required)) {
      const required = (out.required as string[]).filter((name) => properties[name]?.default === undefined);
      if (required.length > 0) out.required = required;
      else delete out.required;
    }
    return out;
  };
  return strip(plain(schema)) as Json;
}

function parameters(operation: OperationSpec): Json[] {
  const out: Json[] = [];
  for (const [location, schema] of [
    ['path', operation.params],
    ['query', operation.query],
  ] as const) {
    if (!schema) continue;
    const required = new Set(schema.required ?? []);
    for (const [name, property] of Object.entries(schema.properties)) {
      const p = plain(property);
      out.push({
        name,
        in: location,
        required: location === 'path' || (required.has(name) && p.default === undefined),
        description: p.description,
        schema: p,
      });
    }
  }
  // Declared once under components.parameters; every write the replicated log carries takes it.
  if (isReplicated(operation)) out.push({ $ref: '#/components/parameters/IdempotencyKey' });
  // Cluster mode's read options: the server reads them on every operation, before its use case runs.
  out.push({ $ref: '#/components/parameters/GoDBConsistency' }, { $ref: '#/components/parameters/GoDBMinSeq' });
  return out;
}

/** Whether cluster mode carries the operation's writes through the replicated log. */
const isReplicated = (operation: OperationSpec) => clusterHandling[operation.id as OperationId] === 'replicated';

/**
 * Error codes an operation can answer with: its own, the common ones, auth errors when it needs a token, and
 * TENANT_RESTORING when it reads or changes a tenant's data.
 */
export function operationErrors(operation: OperationSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>([...operation.errors, ...commonErrors]);
  if (operation.access !== 'public') for (const code of authErrors) codes.add(code);
  if (operation.access !== 'public' && tenantDataCategories.includes(operation.category)) codes.add('TENANT_RESTORING');
  if (isReplicated(operation)) codes.add('IDEMPOTENCY_KEY_REPLAYED');
  return [...codes];
}

/** The operation's own example answers of one status, as OpenAPI `examples` (none when it has none). */
function responseExamples(operation: OperationSpec, status: number): Json {
  const examples = operation.examples.filter((e) => e.response.status === status);
  if (examples.length === 0) return {};
  return {
    examples: Object.fromEntries(
      examples.map((e, i) => [`example${i + 1}`, { summary: e.summary, value: e.response.body }]),
    ),
  };
}

function responses(operation: OperationSpec): Json {
  const out: Json = {};
  // Cluster mode: a read of the replicated data says, on every answer, errors too, when it may be stale.
  const stale: Json = marksStale(operation.id as OperationId)
    ? { [staleHeader.name]: { $ref: '#/components/headers/GoDBStale' } }
    : {};
  for (const answer of [operation.success, ...(operation.alternatives ?? [])]) {
    out[answer.status] = {
      description: answer.description,
      // Cluster mode: every answer the operation gives carries the node's place in the log.
      headers: { [sequenceHeader.name]: { $ref: '#/components/headers/GoDBSeq' }, ...stale },
      content: {
        'application/json': { schema: plain(answer.schema), ...responseExamples(operation, answer.status) },
      },
    };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of operationErrors(operation)) {
    const status = errorCatalogue[code].http;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[status] = {
      description: codes.map((c) => `${c}: ${errorCatalogue[c].description}`).join(' '),
      ...(Object.keys(stale).length > 0 ? { headers: stale } : {}),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
    };
  }
  return out;
}

/**
 * The licence the document states: the project's package.json says UNLICENSED (proprietary, nothing granted). That
 * is no SPDX licence, so the identifier is SPDX's form for one off the list, LicenseRef-<name>, and the name says it in
 * words (docs/decisions/0005-openapi-for-third-party-tools.md).
 */
export const documentLicense = {
  name: 'Proprietary (UNLICENSED): no licence is granted',
  identifier: 'LicenseRef-Proprietary',
} as const;

const sortedByName = (schemas: Record<string, Json>) =>
  Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));

/** Request bodies (request view) and answers (response view) of the document's operations, to name their schemas. */
function schemaSites(paths: Record<string, Json>): SchemaSite[] {
  const sites: SchemaSite[] = [];
  const contentSites = (content: unknown, view: SchemaView) => {
    for (const media of Object.values((content ?? {}) as Record<string, Json>)) {
      const schema = media.schema as Json | undefined;
      if (schema && schema.$ref === undefined) sites.push({ schema, view, replace: (s) => (media.schema = s) });
    }
  };
  for (const entry of Object.values(paths).flatMap((methods) => Object.values(methods) as Json[])) {
    contentSites((entry.requestBody as Json | undefined)?.content, 'request');
    for (const response of Object.values(entry.responses as Record<string, Json>)) {
      contentSites(response.content, 'response');
    }
  }
  return sites;
}

/**
 * Builds the OpenAPI 3.1 document of a catalogue. Aliases are listed under `x-aliases` of their operation so the
 * document has exactly one entry per operation. The contract's shared schemas (every object schema exported by
 * contract/src/schemas/, see openapi-components.ts) are named components, referenced with `$ref` wherever they
 * occur, so generated clients get named types; `components: false` inlines them instead.
 */
export function buildOpenApi(
  operations: readonly OperationSpec[],
  info: { version: string; serverUrl?: string },
  options: { components?: boolean } = {},
): Json {
  const paths: Record<string, Json> = {};
  for (const operation of operations) {
    const entry: Json = {
      operationId: operation.id,
      summary: operation.summary,
      description: operation.description,
      tags: [operation.category],
      parameters: parameters(operation),
      responses: responses(operation),
      'x-name': operation.name,
      'x-access': operation.access,
      'x-aliases': operation.http.aliases,
    };
    if (operation.body) {
      entry.requestBody = {
        required: true,
        content: {
          'application/json': {
            schema: callerSchema(operation.body),
            examples: Object.fromEntries(
              operation.examples
                .filter((e) => e.body !== undefined)
                .map((e, i) => [`example${i + 1}`, { summary: e.summary, value: e.body }]),
            ),
          },
        },
      };
    }
    if (operation.ndjson) {
      entry.requestBody = {
        required: true,
        description: operation.ndjson.description,
        content: {
          'application/x-ndjson': {
            // Each line of the stream is one item of this schema: OpenAPI 3.2's itemSchema, as an extension of 3.1.
            'x-itemSchema': callerSchema(operation.ndjson.line),
            schema: { type: 'string', description: 'NDJSON: one JSON document per line, UTF-8, \\n separated.' },
          },
        },
      };
    }
    if (operation.binary) {
      entry.requestBody = {
        required: true,
        description: operation.binary.description,
        content: { [operation.binary.contentType]: { schema: { type: 'string', format: 'binary' } } },
      };
    }
    // Either credential: a login token or an API key as a bearer token, or an API key in its own header.
    // A public operation says so (an empty list): no credential is needed.
    entry.security = operation.access === 'public' ? [] : [{ bearerAuth: [] }, { apiKeyAuth: [] }];
    const path = (paths[operation.http.path] ??= {});
    path[operation.http.method.toLowerCase()] = entry;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'GoDB API',
      version: info.version,
      description: 'Vector database and search engine. Every error answers the ErrorBody schema.',
      license: documentLicense,
    },
    // The document is served by the API it describes: its paths are relative to the server that served it.
    servers: [{ url: info.serverUrl ?? '/' }],
    paths,
    components: {
      schemas: sortedByName({
        ...(options.components !== false && extractComponents(namedSchemas(plain, callerSchema), schemaSites(paths))),
        ErrorBody: plain(ErrorBody),
      }),
      parameters: {
        IdempotencyKey: {
          name: idempotencyKeyHeader.name,
          in: 'header',
          required: false,
          description: idempotencyKeyHeader.description,
          schema: { type: 'string', pattern: idempotencyKeyHeader.pattern },
        },
        GoDBConsistency: {
          name: consistencyHeader.name,
          in: 'header',
          required: false,
          description: consistencyHeader.description,
          schema: { type: 'string', enum: consistencyHeader.values, default: consistencyHeader.default },
        },
        GoDBMinSeq: {
          name: minSeqHeader.name,
          in: 'header',
          required: false,
          description: minSeqHeader.description,
          schema: { type: 'string', pattern: minSeqHeader.pattern },
        },
      },
      headers: {
        GoDBSeq: {
          description: sequenceHeader.description,
          schema: { type: 'string', pattern: sequenceHeader.pattern },
        },
        GoDBStale: { description: staleHeader.description, schema: staleHeader.schema },
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'A login token (JWT, from POST /auth/login) or an API key (godb_<id>_<secret>).',
        },
        apiKeyAuth: {
          type: 'apiKey',
          in: 'header',
          name: 'api-key',
          description: 'An API key (godb_<id>_<secret>, from POST /auth/api-keys).',
        },
      },
    },
  };
}
