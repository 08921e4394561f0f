import { playgroundFields, requestBodyOf, type CatalogueOperation, type PlaygroundField } from '@godb/contract';
import { formatMessage } from '@godb/contract/errors';
import { apiV1Path } from '../../lib/operation-path';

/** A check the playground makes before sending (api-spec §5); its message is shown and nothing is sent. */
export class ClientValidationError extends Error {
  override name = 'ClientValidationError';
}

export interface BuiltRequest {
  readonly method: string;
  readonly path: string;
  readonly query?: Record<string, string>;
  /** A JSON body. */
  readonly body?: unknown;
  /** A file sent as it is as the body, with its content type (an NDJSON import, a snapshot archive). */
  readonly file?: { readonly blob: Blob; readonly contentType: string };
}

const fail = (message: string): never => {
  throw new ClientValidationError(message);
};

function parseJson(field: PlaygroundField, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    const reason = (error as Error).message;
    return fail(formatMessage(field.jsonMessage ?? `Invalid JSON in ${field.name}: {reason}`, { reason }));
  }
}

function convert(field: PlaygroundField, raw: string): unknown {
  switch (field.valueType) {
    case 'date': {
      if (/^\d+$/.test(raw.trim())) return Number(raw);
      const ms = Date.parse(raw);
      return Number.isNaN(ms) ? fail(`${field.label} must be a date or Unix seconds`) : Math.floor(ms / 1000);
    }
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

/** The files the visitor chose, by field name. */
export type ChosenFiles = Readonly<Record<string, Blob | null | undefined>>;

/**
 * The request the playground sends for an operation and the form's values, from the operation's definition alone:
 * path parameters substituted, GET (and DELETE) fields as a query string, other methods as a JSON body (or the
 * raw JSON body, or the chosen file streamed as the body), with the catalogue's checks (api-spec §5).
 *
 * @example buildRequest(operationById('get-document'), { id: 'a b' }) // { method: 'GET', path: '/api/v1/documents/a%20b' }
 */
export function buildRequest(
  op: CatalogueOperation,
  values: Readonly<Record<string, string>>,
  options: { log?: (message: string) => void; files?: ChosenFiles } = {},
): BuiltRequest {
  const log = options.log ?? ((m: string) => console.warn(m));
  const all = playgroundFields(op);
  const bodyKind = requestBodyOf(op);
  let file: BuiltRequest['file'];
  if (bodyKind.kind === 'file') {
    const field = all.find((f) => f.sends === 'body');
    const blob = field ? options.files?.[field.name] : undefined;
    if (!blob) return fail(field?.requiredMessage ?? `${field?.label ?? 'A file'} is required`);
    file = { blob, contentType: bodyKind.contentType };
  }
  let path = apiV1Path(op);
  const converted: Record<string, unknown> = {};
  const locations = new Map<string, PlaygroundField['in']>();
  for (const field of all.filter((f) => f.in !== 'client')) {
    const raw = (values[field.name] ?? '').trim() === '' ? '' : (values[field.name] ?? '');
    if (field.in === 'path') {
      if (raw === '') fail(field.requiredMessage ?? `${field.label} is required`);
      path = path.replace(`{${field.name}}`, encodeURIComponent(raw.trim()));
      continue;
    }
    if (raw === '') {
      if (field.required) fail(field.requiredMessage ?? `${field.label} is required`);
      continue;
    }
    converted[field.name] = convert(field, raw);
    locations.set(field.name, field.in);
  }
  const ignored = new Set<string>();
  const problem = op.playground?.check?.(converted, (name, note) => {
    log(note);
    ignored.add(name);
  });
  if (problem !== undefined) fail(problem);
  for (const name of ignored) locations.delete(name);
  const sent = Object.entries(converted).filter(([name]) => !ignored.has(name));
  const method = op.http.method;
  const asText = (value: unknown) => (Array.isArray(value) ? value.join(',') : String(value));
  if (method === 'GET' || method === 'DELETE') {
    const query: Record<string, string> = {};
    for (const [name, value] of sent) query[name] = asText(value);
    return { method, path, ...(Object.keys(query).length > 0 && { query }) };
  }
  // A query-string field of a POST (Add Document's ?async=true) goes in the URL, not the body.
  const inQuery = (name: string) => locations.get(name) === 'query';
  const query = Object.fromEntries(
    sent.filter(([name]) => inQuery(name)).map(([name, value]) => [name, asText(value)]),
  );
  const withQuery = Object.keys(query).length > 0 ? { query } : {};
  if (file) return { method, path, ...withQuery, file };
  const body = Object.fromEntries(sent.filter(([name]) => !inQuery(name)));
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
  if (request.file) {
    const name = 'name' in request.file.blob ? String(request.file.blob.name) : 'file';
    parts.push(`-H ${quote(`content-type: ${request.file.contentType}`)}`);
    parts.push(`--data-binary ${quote(`@${name}`)}`);
  } else if (request.body !== undefined) {
    parts.push(`-H 'content-type: application/json'`);
    parts.push(`-d ${quote(JSON.stringify(request.body))}`);
  }
  return parts.join(' \\\n  ');
}
