import {
  centralityTypes,
  graphQueryTypes,
  playgroundFields,
  recommendationStrategies,
  type CatalogueOperation,
  type PlaygroundField,
} from '@godb/contract';
import { clientMessages, formatMessage } from '@godb/contract/errors';

/** A check the playground makes before sending (api-spec §5); its message is shown and nothing is sent. */
export class ClientValidationError extends Error {
  override name = 'ClientValidationError';
}

export interface BuiltRequest {
  readonly method: string;
  readonly path: string;
  readonly query?: Record<string, string>;
  readonly body?: unknown;
}

const dateFields = new Set(['created_at', 'updated_at', 'indexed_at', 'last_engaged']);
const engagementOps = new Set(['update-engagement', 'record-engagement']);
const queryRequired = new Set(['search-text', 'search-smart', 'search-fuzzy', 'simple-search']);
const fail = (message: string): never => {
  throw new ClientValidationError(message);
};

/** The /api/v1 form of an operation's path (the playground calls those). */
export function apiV1Path(op: CatalogueOperation): string {
  return [op.http.path, ...op.http.aliases].find((p) => p.startsWith('/api/')) ?? op.http.path;
}

function parseJson(field: PlaygroundField, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    const reason = (error as Error).message;
    if (field.name === 'filters') return fail(formatMessage(clientMessages.invalidFiltersJson, { reason }));
    if (field.name === 'feedback') return fail(formatMessage(clientMessages.invalidFeedbackJson, { reason }));
    if (field.name === 'vector') return fail(formatMessage(clientMessages.invalidVectorFormat, { reason }));
    return fail(`Invalid JSON in ${field.name}: ${reason}`);
  }
}

function convert(field: PlaygroundField, raw: string): unknown {
  if (dateFields.has(field.name)) {
    if (/^\d+$/.test(raw.trim())) return Number(raw);
    const ms = Date.parse(raw);
    return Number.isNaN(ms) ? fail(`${field.label} must be a date or Unix seconds`) : Math.floor(ms / 1000);
  }
  switch (field.valueType) {
    case 'number':
    case 'integer': {
      const n = Number(raw);
      return Number.isFinite(n) ? n : fail(`${field.label} must be a number`);
    }
    case 'boolean':
      return raw === 'true';
    case 'array':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'json':
      return parseJson(field, raw);
    default:
      return raw;
  }
}

function isFilterList(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.every((e) => typeof e === 'object' && e !== null && 'field' in e && 'operator' in e && 'value' in e)
  );
}

/** Operation-specific checks of api-spec §5, on the converted values. */
function check(op: CatalogueOperation, v: Record<string, unknown>, log: (message: string) => void): void {
  if (queryRequired.has(op.id) && (typeof v.query !== 'string' || v.query.trim() === ''))
    fail(clientMessages.queryRequired);
  if (op.id === 'search-graph' || op.id === 'graph-query') {
    if (v.query_type !== undefined && !(graphQueryTypes as readonly string[]).includes(String(v.query_type))) {
      fail(formatMessage(clientMessages.invalidQueryType, { allowed: graphQueryTypes.join(', ') }));
    }
    if (
      v.query_type === 'centrality' &&
      v.centrality_type !== undefined &&
      !(centralityTypes as readonly string[]).includes(String(v.centrality_type))
    ) {
      fail(`Invalid centrality_type. Must be one of: ${centralityTypes.join(', ')}`);
    }
    if (v.depth !== undefined && Number(v.depth) < 1) fail(clientMessages.depthTooSmall);
  }
  if (op.id === 'search-recommendations') {
    if (v.strategy !== undefined && !(recommendationStrategies as readonly string[]).includes(String(v.strategy))) {
      fail(`Invalid strategy. Must be one of: ${recommendationStrategies.join(', ')}`);
    }
    if (v.strategy === 'hybrid') {
      const sum = Number(v.content_weight ?? 0.4) + Number(v.collab_weight ?? 0.3) + Number(v.graph_weight ?? 0.3);
      if (Math.abs(sum - 1) > 0.001) fail(clientMessages.weightsMustSumToOne);
    }
    if (v.min_similarity !== undefined && (Number(v.min_similarity) < 0 || Number(v.min_similarity) > 1))
      fail('min_similarity must be between 0 and 1');
  }
  if (
    (op.id === 'search-autocomplete' || op.id === 'search-fuzzy') &&
    v.fuzziness !== undefined &&
    ![0, 1, 2].includes(Number(v.fuzziness))
  ) {
    fail('Fuzziness must be 0, 1 or 2');
  }
  if (op.id === 'search-vector') {
    if (v.threshold !== undefined && (Number(v.threshold) < 0 || Number(v.threshold) > 1))
      fail(clientMessages.thresholdOutOfRange);
    if (v.vector !== undefined && (!Array.isArray(v.vector) || !v.vector.every((x) => typeof x === 'number'))) {
      fail(formatMessage(clientMessages.invalidVectorFormat, { reason: 'expected a JSON array of numbers' }));
    }
    if (v.filters !== undefined && !isFilterList(v.filters)) {
      log('Vector search filters must be a list of {field, operator, value}: they are ignored.');
      delete v.filters;
    }
  }
}

/**
 * The request the playground sends for an operation and the form's values: path parameters substituted, GET
 * (and DELETE) fields as a query string, other methods as a JSON body, with every check of api-spec §5.
 */
export function buildRequest(
  op: CatalogueOperation,
  values: Readonly<Record<string, string>>,
  options: { log?: (message: string) => void } = {},
): BuiltRequest {
  const log = options.log ?? ((m: string) => console.warn(m));
  const fields = playgroundFields(op).filter((f) => f.in !== 'client');
  let path = apiV1Path(op);
  const converted: Record<string, unknown> = {};
  const locations = new Map<string, PlaygroundField['in']>();
  for (const field of fields) {
    const raw = (values[field.name] ?? '').trim() === '' ? '' : (values[field.name] ?? '');
    if (field.in === 'path') {
      if (raw === '') fail(`${field.label} is required`);
      path = path.replace(`{${field.name}}`, encodeURIComponent(raw.trim()));
      continue;
    }
    if (engagementOps.has(op.id) && field.name === 'id') continue;
    if (raw === '') {
      if (field.required && !queryRequired.has(op.id)) fail(`${field.label} is required`);
      continue;
    }
    converted[field.name] = convert(field, raw);
    locations.set(field.name, field.in);
  }
  check(op, converted, log);
  const method = op.http.method;
  const asText = (value: unknown) => (Array.isArray(value) ? value.join(',') : String(value));
  if (method === 'GET' || method === 'DELETE') {
    const query: Record<string, string> = {};
    for (const [name, value] of Object.entries(converted)) query[name] = asText(value);
    return { method, path, ...(Object.keys(query).length > 0 && { query }) };
  }
  // A query-string field of a POST (Add Document's ?async=true) goes in the URL, not the body.
  const inQuery = (name: string) => locations.get(name) === 'query';
  const query = Object.fromEntries(
    Object.entries(converted)
      .filter(([name]) => inQuery(name))
      .map(([name, value]) => [name, asText(value)]),
  );
  const body = Object.fromEntries(Object.entries(converted).filter(([name]) => !inQuery(name)));
  const withQuery = Object.keys(query).length > 0 ? { query } : {};
  const raw = [...locations].find(([, where]) => where === 'raw-body');
  if (raw) return { method, path, ...withQuery, body: body[raw[0]] };
  return { method, path, ...withQuery, body };
}

/** The request as a curl command line. */
export function toCurl(request: BuiltRequest, baseUrl: string, token: string | null): string {
  const query = request.query ? `?${new URLSearchParams(request.query).toString()}` : '';
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const parts = [`curl -X ${request.method} ${quote(`${baseUrl}${request.path}${query}`)}`];
  if (token) parts.push(`-H ${quote(`authorization: Bearer ${token}`)}`);
  if (request.body !== undefined) {
    parts.push(`-H 'content-type: application/json'`);
    parts.push(`-d ${quote(JSON.stringify(request.body))}`);
  }
  return parts.join(' \\\n  ');
}
