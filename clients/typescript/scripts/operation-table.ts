import { clientMessages, operations, type CatalogueOperation, type Category } from '@godb/contract';
import { Kind } from '@sinclair/typebox';
import { format, resolveConfig } from 'prettier';

type Json = Record<string, unknown>;

/** How the client sends an operation's input: as the JSON body's fields, as the JSON body itself, or as NDJSON. */
export type BodyKind = 'none' | 'fields' | 'value' | 'ndjson' | 'binary';
/** What the answer is: JSON, NDJSON lines, or bytes (a file) handed over as the fetch Response. */
export type ResponseKind = 'json' | 'ndjson' | 'binary';

export interface TableEntry {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly query: readonly string[];
  readonly body: BodyKind;
  /** The type of a raw body (`binary`), e.g. `application/x-tar`. */
  readonly contentType?: string;
  readonly response: ResponseKind;
  /** Safe to send twice: retried after any 503 or a network failure, not only after a refusal. */
  readonly idempotent: boolean;
  /** Input fields that have a server-side default, so the caller may leave them out (dotted paths). */
  readonly defaults: readonly string[];
}

/** POST operations that only read (searches, counts, embeddings): sending one twice changes nothing. */
const readOnlyCategories: ReadonlySet<Category> = new Set(['search', 'graph', 'embeddings']);
const readOnlyPosts: ReadonlySet<string> = new Set(['count-documents', 'scroll-documents']);

const singular = (noun: string) => (noun.endsWith('xes') ? noun.slice(0, -2) : noun.replace(/s$/, ''));
const camel = (words: readonly string[]) =>
  words.map((w, i) => (i === 0 ? w : `${w.charAt(0).toUpperCase()}${w.slice(1)}`)).join('');

/**
 * The naming rule: the group is the operation's category; the method is its id in camelCase without the word that
 * names the category (singular or plural). When that leaves two operations of a group with one name, the one whose
 * id names the plural acts on many and ends in `Many`.
 *
 * @example methodName(searchHybrid) // 'hybrid' (client.search.hybrid); createCollection → collections.create
 */
export function methodNames(
  ops: readonly CatalogueOperation[],
): { op: CatalogueOperation; group: Category; method: string }[] {
  const named = ops.map((op) => {
    const words = op.id.split('-');
    const kept = words.filter((w) => w !== op.category && w !== singular(op.category));
    const plural = words.includes(op.category) && op.category !== singular(op.category);
    return { op, group: op.category, method: camel(kept.length > 0 ? kept : words), plural };
  });
  const uses = new Map<string, number>();
  for (const { group, method } of named) uses.set(`${group}.${method}`, (uses.get(`${group}.${method}`) ?? 0) + 1);
  const final = named.map(({ op, group, method, plural }) => ({
    op,
    group,
    method: plural && (uses.get(`${group}.${method}`) ?? 0) > 1 ? `${method}Many` : method,
  }));
  const seen = new Set<string>();
  for (const { group, method } of final) {
    const key = `${group}.${method}`;
    if (seen.has(key)) throw new TypeError(`Two operations would be ${key}: extend the naming rule`);
    seen.add(key);
  }
  return final;
}

/** Paths of required fields that have a default (the server fills them in), relative to the method's input. */
function defaultedPaths(schema: unknown, prefix: string, out: string[]): void {
  if (typeof schema !== 'object' || schema === null) return;
  const node = schema as Json;
  const join = (segment: string) => (prefix === '' ? segment : `${prefix}.${segment}`);
  if (node.type === 'object' && typeof node.properties === 'object' && node.properties !== null) {
    const required = new Set((node.required as string[] | undefined) ?? []);
    for (const [key, child] of Object.entries(node.properties as Record<string, Json>)) {
      if (required.has(key) && child.default !== undefined) out.push(join(key));
      defaultedPaths(child, join(key), out);
    }
  }
  if (node.items !== undefined) defaultedPaths(node.items, join('[]'), out);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    for (const child of (node[key] as unknown[] | undefined) ?? []) defaultedPaths(child, prefix, out);
  }
  for (const child of Object.values((node.patternProperties as Json | undefined) ?? {})) {
    defaultedPaths(child, join('*'), out);
  }
}

function bodyKind(op: CatalogueOperation): BodyKind {
  if (op.ndjson) return 'ndjson';
  if (op.binary) return 'binary';
  if (!op.body) return 'none';
  return (op.body as Json).type === 'object' ? 'fields' : 'value';
}

function entry(op: CatalogueOperation): TableEntry {
  const body = bodyKind(op);
  const defaults: string[] = [];
  if (op.query) defaultedPaths(op.query, '', defaults);
  if (body === 'fields') defaultedPaths(op.body, '', defaults);
  if (body === 'value') defaultedPaths(op.body, 'body', defaults);
  if (body === 'ndjson') defaultedPaths(op.ndjson?.line, 'line', defaults);
  const method = op.http.method;
  return {
    id: op.id,
    method,
    path: op.http.path,
    query: op.query ? Object.keys(op.query.properties) : [],
    body,
    ...(op.binary && { contentType: op.binary.contentType }),
    response: op.ndjson
      ? 'ndjson'
      : (op.success.schema as unknown as Record<symbol, unknown>)[Kind] === 'Unknown'
        ? 'binary'
        : 'json',
    idempotent:
      method === 'GET' ||
      method === 'PUT' ||
      method === 'DELETE' ||
      (method === 'POST' && (readOnlyCategories.has(op.category) || readOnlyPosts.has(op.id))),
    defaults: [...new Set(defaults)],
  };
}

/** The table, grouped by category then method name, in catalogue order. */
export function buildTable(
  ops: readonly CatalogueOperation[] = operations,
): Record<string, Record<string, TableEntry>> {
  const table: Record<string, Record<string, TableEntry>> = {};
  for (const { op, group, method } of methodNames(ops)) (table[group] ??= {})[method] = entry(op);
  return table;
}

/** The messages of the catalogue's clientMessages meant for client libraries. */
export const sdkMessages = Object.fromEntries(Object.entries(clientMessages).filter(([key]) => key.startsWith('sdk')));

/** The text of src/operations.generated.ts, formatted as the repository's prettier would. */
export async function renderOperationTable(): Promise<string> {
  const source = [
    '// Generated from the contract catalogue by scripts/generate-operations.ts (npm run generate -w @godb/client).',
    '// Do not edit: operations.test.ts regenerates it and fails when it differs.',
    '',
    '/** Every operation of the API by group and method name: what the client needs to send it. */',
    `export const operationTable = ${JSON.stringify(buildTable())} as const;`,
    '',
    '/** Messages of the contract’s catalogue for failures no server answer explains. */',
    `export const sdkMessages = ${JSON.stringify(sdkMessages)} as const;`,
    '',
  ].join('\n');
  const target = new URL('../src/operations.generated.ts', import.meta.url).pathname;
  return format(source, { ...(await resolveConfig(target)), filepath: target });
}
