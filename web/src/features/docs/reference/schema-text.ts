/** Readable descriptions of the contract's JSON schemas, for the reference. */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  const?: unknown;
  items?: JsonSchema | JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

export function typeOf(schema: JsonSchema): string {
  if (schema.enum) return `one of ${schema.enum.map(String).join(', ')}`;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' | ');
  if (schema.type === 'array') {
    if (Array.isArray(schema.items)) return `[${schema.items.map(typeOf).join(', ')}]`;
    return `array of ${schema.items ? typeOf(schema.items) : 'any'}`;
  }
  if (schema.type === 'object' && !schema.properties) return 'object';
  if (schema.type === undefined) return 'any JSON';
  // A date field takes Unix seconds or an ISO 8601 text (the contract's DateInput).
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  const format = schema.format ? ` (${schema.format})` : '';
  return `${String(schema.type)}${format}`;
}

export function limitsOf(schema: JsonSchema): string {
  const parts: string[] = [];
  if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  if (schema.minLength !== undefined && schema.minLength > 0) parts.push(`${schema.minLength}+ chars`);
  if (schema.maxLength !== undefined) parts.push(`≤ ${schema.maxLength} chars`);
  return parts.join(', ');
}

/**
 * A description as a sentence: its first letter in upper case, unless the first word is an identifier whose
 * spelling matters: it looks like one (`user_id`, `k1`, `camelCase`) or is one of `identifiers` (field names and
 * allowed values, as in 'linear: uniform levels…' or 'user, admin or superadmin').
 *
 * @example sentence('the id of the document') // 'The id of the document'
 * @example sentence('user_id of the caller') // 'user_id of the caller'
 * @example sentence('mode auto picks a route', ['mode']) // 'mode auto picks a route'
 */
export function sentence(text: string, identifiers: Iterable<string> = []): string {
  const first = /^\S+/.exec(text)?.[0] ?? '';
  if (!/^[a-z][a-z'’-]*[,:;.]?$/.test(first)) return text;
  if (new Set(identifiers).has(first.replace(/[,:;.]$/, ''))) return text;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The literal values a schema allows (enum members and constants), as text. */
export function literalsOf(schema: JsonSchema): string[] {
  if (schema.enum) return schema.enum.map(String);
  if (schema.const !== undefined) return [String(schema.const)];
  if (schema.anyOf) return schema.anyOf.flatMap(literalsOf);
  if (schema.type === 'array' && schema.items && !Array.isArray(schema.items)) return literalsOf(schema.items);
  return [];
}

/** Field names and allowed values of object schemas: the words a description may start with verbatim. */
export function identifiersOf(...schemas: (JsonSchema | undefined)[]): string[] {
  return schemas.flatMap((schema) =>
    Object.entries(schema?.properties ?? {}).flatMap(([name, property]) => [name, ...literalsOf(property)]),
  );
}

export interface FieldRow {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly default: string;
  readonly description: string;
}

/**
 * The fields of an object schema (or of the items of an array of objects), one level deep. A field with a
 * default is not required from the caller: the server fills it in.
 */
export function fieldRows(schema: JsonSchema | undefined): FieldRow[] {
  if (!schema) return [];
  const object = schema.type === 'array' && schema.items && !Array.isArray(schema.items) ? schema.items : schema;
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties ?? {}).map(([name, s]) => ({
    name,
    type: typeOf(s),
    required: required.has(name) && s.default === undefined,
    default: s.default === undefined ? '' : JSON.stringify(s.default),
    description: sentence([s.description ?? '', limitsOf(s)].filter(Boolean).join(' '), [name, ...literalsOf(s)]),
  }));
}
