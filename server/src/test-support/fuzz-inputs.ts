/**
 * Schema-driven request generation for the fuzz test (issue #22): values that mostly follow an operation's
 * contract schema, with one field (or the whole body) swapped for something hostile. Deterministic for a seed.
 */

/** A JSON schema as TypeBox builds them, read loosely. */
export type Schema = Record<string, unknown> & {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  required?: string[];
  items?: Schema | Schema[];
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  format?: string;
  pattern?: string;
};

/** mulberry32, the engine's seeded generator: a failing run can be replayed from its seed. */
export { seededRandom } from '../engine/vectors/kmeans.js';

/**
 * Stand-ins for JSON text that JSON.stringify cannot write (1e309 parses as Infinity, -0, numbers past 2^53
 * written exactly). {@link encodeBody} writes them verbatim.
 */
const rawTokens = [
  '1e309',
  '-1e309',
  '1e308',
  '-1e308',
  '9007199254740993',
  '-0',
  '1e-400',
  '123456789012345678901234567890',
];
const raw = (token: string) => `@@raw:${token}@@`;

/** The body as JSON text, with the raw tokens written as bare JSON numbers. */
export function encodeBody(value: unknown): string {
  return JSON.stringify(value).replace(/"@@raw:([^@"]+)@@"/g, '$1');
}

const words = ['wing', 'boundary', 'layer', 'shock', 'heat', 'flow', 'vector', 'graph', 'search', 'tags', 'ann'];

/** The hostile values a careless or malicious client sends. */
function hostileValue(random: () => number, known: KnownValues): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const kinds: (() => unknown)[] = [
    () => raw(pick(rawTokens)),
    () => pick([0, -1, -2147483649, 2 ** 31, 2 ** 53, Number.MAX_SAFE_INTEGER, -Number.MAX_VALUE, 0.5, 1e21]),
    () => pick([null, true, false, '', ' ', '0', 'true', 'null', '[]', '{}', 'NaN', 'Infinity', '-1']),
    () => pick([[], {}, [null], [[]], [{}], [1, 'a', null], { '': null }]),
    // Own `__proto__` and `constructor` keys, as JSON.parse makes them.
    () => JSON.parse('{"__proto__":{"admin":true},"constructor":{"prototype":{"polluted":true}}}') as unknown,
    () => 'x'.repeat(pick([257, 1025, 4097, 20_000, 70_000])),
    () => pick(words).repeat(pick([50, 500, 2000])),
    () => Array.from({ length: pick([33, 65, 1001, 10_001]) }, (_v, i) => pick([`t${i}`, i, null])),
    () =>
      pick([
        '\u202Eevil',
        '\u0000',
        '\ud800',
        'a\u0007b\r\nc',
        '😀'.repeat(100),
        'زمان',
        '\u2066x\u2069',
        'é'.repeat(300),
      ]),
    () =>
      pick(['../../../etc/passwd', '..%2F..%2Fetc%2Fpasswd', '%zz', '%2e%2e', 'a/b', '?x=1', '#frag', '/etc/passwd']),
    () => pick(['*', '**', '?', '"', "'", '\\', 'a"b', '${jndi:ldap://x}', '<script>', 'OR 1=1 --', 'NEAR(a b)', '^']),
    () => pick(known.documentIds),
    () => pick(known.userIds),
    // JSON text, as forms send filters and join conditions.
    () => pick(['[null]', 'null', '[{"field":null}]', '{"a":1e309}', '[[[[]]]]', '"x"', '[1e309]']),
    () => nested(pick([50, 500, 3000])),
  ];
  return pick(kinds)();
}

/** [[[…]]] n levels deep. */
function nested(depth: number): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
}

/** A version-4 UUID drawn from the seeded generator. */
function uuid(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = '89ab'[Math.floor(random() * 4)]!;
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Ids the server knows, so generated requests reach past "not found" now and then. */
export interface KnownValues {
  readonly documentIds: readonly string[];
  readonly userIds: readonly string[];
  readonly groupIds: readonly string[];
}

/** A value that mostly conforms to `schema`. */
export function conforming(schema: Schema, random: () => number, known: KnownValues, depth = 0): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return pick(schema.enum);
  if (schema.anyOf) return conforming(pick(schema.anyOf), random, known, depth + 1);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s) => conforming(s, random, known, depth + 1)));
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'uuid') return pick([...known.userIds, ...known.groupIds, uuid(random)]);
      if (schema.format === 'email') return `fuzz-${Math.floor(random() * 1e9)}@example.com`;
      if (schema.pattern?.startsWith('^godb-')) return pick(['godb-0.1.0.tar.gz', 'godb-x.tar.gz']);
      if (schema.pattern?.includes('{43}')) return 'A'.repeat(43);
      const minimum = schema.minLength ?? 0;
      if (random() < 0.3 && known.documentIds.length > 0) return pick(known.documentIds);
      let text = Array.from({ length: between(minimum > 0 ? 1 : 0, 4) }, () => pick(words)).join(' ');
      while (text.length < minimum) text += 'x';
      return text.slice(0, schema.maxLength ?? 64);
    }
    case 'integer':
    case 'number': {
      const low = Math.max(schema.minimum ?? schema.exclusiveMinimum ?? -5, -5);
      const high = Math.min(schema.maximum ?? 50, 50);
      const value = between(Math.ceil(low), Math.floor(Math.max(low, high)));
      return schema.type === 'number' && random() < 0.5 ? Math.min(high, value + random()) : value;
    }
    case 'boolean':
      return random() < 0.5;
    case 'array': {
      const items = Array.isArray(schema.items) ? schema.items : undefined;
      if (items) return items.map((s) => conforming(s, random, known, depth + 1));
      const count = between(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3));
      const item = (schema.items ?? {}) as Schema;
      return Array.from({ length: count }, () => conforming(item, random, known, depth + 1));
    }
    case 'object': {
      const result: Record<string, unknown> = {};
      const required = new Set(schema.required ?? []);
      for (const [key, child] of Object.entries(schema.properties ?? {})) {
        if (required.has(key) || (depth < 3 && random() < 0.4))
          result[key] = conforming(child, random, known, depth + 1);
      }
      if (schema.patternProperties && random() < 0.5) result[pick(words)] = pick(words);
      return result;
    }
    default:
      // Unknown: filters, join_conditions, vectors, feedback — each of their accepted shapes, and some that are not.
      return pick([
        [],
        { tags: 'ann' },
        [{ field: 'tags', operator: 'eq', value: 'ann' }],
        '[{"field":"metadata.year","operator":"gte","value":2020}]',
        [{ left_table: 'documents', left_field: 'id', right_table: 'documents', right_field: 'title' }],
        [0.1, 0.2, 0.3],
        '[0.5,0.5]',
        'not json',
        { rating: 5 },
        [null],
        [1, 'tags'],
        '[null]',
        'null',
        [{ field: null, operator: null }],
        { 'metadata.x': [null] },
      ]);
  }
}

/** Every dotted path into a JSON value (objects and arrays), the root included as ''. */
function paths(value: unknown, prefix: string[] = []): string[][] {
  const found = [prefix];
  if (prefix.length > 6 || value === null || typeof value !== 'object') return found;
  for (const [key, child] of Object.entries(value)) found.push(...paths(child, [...prefix, key]));
  return found;
}

/** `value` with one field (maybe a new one, maybe the root) replaced by a hostile value. */
export function mutate(value: unknown, schema: Schema | undefined, random: () => number, known: KnownValues): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const candidates = paths(value);
  // Properties the schema declares but the value left out are worth a hostile value too.
  for (const key of Object.keys(schema?.properties ?? {})) candidates.push([key]);
  const path = pick(candidates);
  if (path.length === 0) return hostileValue(random, known);
  const copy = structuredClone(value) as Record<string, unknown>;
  let target: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    const next = target[key];
    if (next === null || typeof next !== 'object') return copy;
    target = next as Record<string, unknown>;
  }
  target[path.at(-1)!] = hostileValue(random, known);
  return copy;
}
