import { type TSchema } from '@sinclair/typebox';
import { canonical, schemaModules } from './openapi-components.js';

/**
 * Proto messages derived from TypeBox schemas (issue #21, "one definition per message"): a gRPC message is the
 * object schema REST validates, walked property by property, so a field added to a schema reaches the proto and
 * the gRPC transport without a second edit. Field numbers are the wire format and never change: they are kept in
 * `grpc-field-numbers.ts` (written by `npm run proto -w contract`), a new field takes the next free number, and the
 * number of a field that left its schema is reserved.
 */
export interface GrpcField {
  readonly name: string;
  readonly type: string;
  readonly number: number;
  readonly repeated?: boolean;
  /** Presence is tracked, so an explicit 0 or false differs from "not given" (which takes the REST default). */
  readonly optional?: boolean;
  readonly description: string;
  /** The schema property it carries (its JSON name over REST, e.g. `userID` for `user_id`). */
  readonly key: string;
  /**
   * How a value crosses: `json` is a structured value as JSON text; `text-map` a map whose values are any JSON,
   * given as text (strings as they are, other values as JSON).
   */
  readonly encoding?: 'json' | 'text-map';
  /** Required by the schema (without a default): an absent number or boolean is its zero value, as in proto3. */
  readonly required?: boolean;
}

export interface GrpcMessage {
  readonly name: string;
  readonly description: string;
  readonly fields: readonly GrpcField[];
  /** Numbers of fields that left the schema: never reused. */
  readonly reserved: readonly number[];
}

/** Where one message comes from: a name, a description and the object schemas whose properties it carries. */
export interface MessageSource {
  readonly name: string;
  readonly description: string;
  readonly parts: readonly TSchema[];
  /** Wire types other than the derived one, e.g. `{ vector: { type: 'repeated float' } }` for a packed vector. */
  readonly wireTypes?: Readonly<Record<string, { readonly type: string; readonly description?: string }>>;
}

/** Field numbers by message and field, as written to grpc-field-numbers.ts. */
export type FieldNumbers = Readonly<Record<string, Readonly<Record<string, number>>>>;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;
const int32Max = 2 ** 31 - 1;
const scalarTypes = new Set(['string', 'bool', 'int32', 'int64', 'double', 'float']);

/** `userID` → `user_id`, `model_name` stays. */
export const snakeCase = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
const pascalCase = (text: string) =>
  snakeCase(text)
    .split(/[_\W]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

/** Schemas by their canonical JSON, so a nested object is named after its export (GeoPoint, SearchResult, …). */
function exportNames(extra: Readonly<Record<string, TSchema>>): Map<string, string> {
  const names = new Map<string, string>();
  for (const module of [...Object.values(schemaModules), extra])
    for (const [name, value] of Object.entries(module))
      if (isObject(value) && value.type === 'object' && isObject(value.properties)) {
        const key = canonical(value);
        if (!names.has(key)) names.set(key, name);
      }
  return names;
}

/** The type of one property: a scalar, a nested message (its schema), a map or JSON text. */
interface Shape {
  type: string;
  repeated?: boolean;
  message?: Json;
  encoding?: 'json' | 'text-map';
}

function scalar(schema: Json): string | undefined {
  if (schema.type === 'string') return 'string';
  if (schema.type === 'boolean') return 'bool';
  if (schema.type === 'number') return 'double';
  if (schema.type === 'integer') {
    const values = Array.isArray(schema.enum) ? (schema.enum as number[]) : undefined;
    const max = values ? Math.max(...values) : typeof schema.maximum === 'number' ? schema.maximum : Infinity;
    const min = values ? Math.min(...values) : typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
    return max <= int32Max && min >= -int32Max - 1 ? 'int32' : 'int64';
  }
  if (Array.isArray(schema.anyOf)) {
    const types = new Set(schema.anyOf.map((s) => (isObject(s) ? scalar(s) : undefined)));
    const [only] = types;
    return types.size === 1 && only ? only : undefined;
  }
  return undefined;
}

const isMessage = (schema: Json) => schema.type === 'object' && isObject(schema.properties);

function shapeOf(schema: Json): Shape {
  const type = scalar(schema);
  if (type) return { type };
  if (isMessage(schema)) return { type: '', message: schema };
  if (schema.type === 'object' && isObject(schema.patternProperties)) {
    const value = Object.values(schema.patternProperties)[0];
    const valueType = isObject(value) ? scalar(value) : undefined;
    return valueType ? { type: `map<string, ${valueType}>` } : { type: 'map<string, string>', encoding: 'text-map' };
  }
  if (schema.type === 'array' && isObject(schema.items)) {
    const item = shapeOf(schema.items);
    if (!item.repeated && !item.encoding && !item.type.startsWith('map<')) return { ...item, repeated: true };
  }
  if (schema.type === 'array' && Array.isArray(schema.items)) {
    const types = new Set(schema.items.map((s) => (isObject(s) ? scalar(s) : undefined)));
    const [only] = types;
    if (types.size === 1 && only) return { type: only, repeated: true };
  }
  return { type: 'string', encoding: 'json' };
}

/** Whether the zero value of a number or boolean is a valid input that means something else than "not given". */
function zeroMeansSomething(schema: Json, required: boolean): boolean {
  const zero = schema.type === 'boolean' ? false : 0;
  if (schema.default === zero) return false;
  if (required && schema.default === undefined) return false;
  if (Array.isArray(schema.enum)) return schema.enum.includes(zero);
  if (typeof zero === 'boolean') return true;
  const n = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined);
  return (
    (n('minimum') ?? -Infinity) <= 0 &&
    (n('exclusiveMinimum') ?? -Infinity) < 0 &&
    (n('maximum') ?? Infinity) >= 0 &&
    (n('exclusiveMaximum') ?? Infinity) > 0
  );
}

/** A description from what the schema says: its description, or its name and allowed values; its default. */
function describe(key: string, schema: Json, shape: Shape): string {
  const words = snakeCase(key).replace(/_/g, ' ');
  let text =
    typeof schema.description === 'string'
      ? schema.description.replace(/\.$/, '')
      : Array.isArray(schema.enum)
        ? `One of ${schema.enum.join(', ')}`
        : words.charAt(0).toUpperCase() + words.slice(1);
  if (schema.default !== undefined && !/default/i.test(text)) text += ` (default ${JSON.stringify(schema.default)})`;
  if (shape.encoding === 'json') text = `JSON text: ${text.charAt(0).toLowerCase()}${text.slice(1)}`;
  if (shape.encoding === 'text-map') text += '; values as text (JSON for other than strings)';
  return `${text}.`;
}

/**
 * The messages of `sources` and of every object nested in them, with numbers from `numbers` (a new field takes the
 * next free number of its message). Throws when two different schemas would take one message name.
 */
export function deriveMessages(
  sources: readonly MessageSource[],
  numbers: FieldNumbers,
  nestedNames: Readonly<Record<string, TSchema>> = {},
): GrpcMessage[] {
  const names = exportNames(nestedNames);
  const messages = new Map<string, { message: GrpcMessage; schema: string }>();
  const derive = (source: {
    name: string;
    description: string;
    parts: readonly Json[];
    wireTypes?: MessageSource['wireTypes'];
  }) => {
    const identity = canonical(source.parts);
    const known = messages.get(source.name);
    if (known) {
      if (known.schema !== identity) throw new TypeError(`two schemas would be message ${source.name}`);
      return;
    }
    const fields: GrpcField[] = [];
    const locked = numbers[source.name] ?? {};
    let next = Math.max(0, ...Object.values(locked)) + 1;
    const placeholder: { message: GrpcMessage; schema: string } = {
      message: { name: source.name, description: '', fields, reserved: [] },
      schema: identity,
    };
    messages.set(source.name, placeholder);
    for (const part of source.parts) {
      const required = new Set(Array.isArray(part.required) ? (part.required as string[]) : []);
      for (const [key, value] of Object.entries(part.properties as Json)) {
        if (!isObject(value)) continue;
        const name = snakeCase(key);
        if (fields.some((f) => f.name === name)) throw new TypeError(`${source.name}.${name} is given twice`);
        let shape = shapeOf(value);
        const wire = source.wireTypes?.[key];
        if (wire) {
          const type = wire.type.replace(/^repeated /, '');
          if (!scalarTypes.has(type)) throw new TypeError(`${source.name}.${name}: unknown wire type ${wire.type}`);
          shape = { type, repeated: wire.type.startsWith('repeated ') || shape.repeated };
        }
        if (shape.message) {
          const item = shape.message;
          const messageName = names.get(canonical(item)) ?? `${source.name}${pascalCase(key)}`;
          const title = messageName.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
          const about =
            typeof item.description === 'string'
              ? item.description
              : `${title.charAt(0).toUpperCase()}${title.slice(1)}.`;
          derive({ name: messageName, description: about, parts: [item] });
          shape = { ...shape, type: messageName };
        }
        const isRequired = required.has(key) && value.default === undefined;
        const presence =
          !shape.repeated && (shape.type === 'bool' || /^(int|double|float)/.test(shape.type))
            ? zeroMeansSomething(value, isRequired)
            : false;
        fields.push({
          name,
          key,
          type: shape.type,
          number: locked[name] ?? next++,
          description: wire?.description ?? describe(key, value, shape),
          ...(shape.repeated ? { repeated: true } : {}),
          ...(presence ? { optional: true } : {}),
          ...(shape.encoding ? { encoding: shape.encoding } : {}),
          ...(isRequired ? { required: true } : {}),
        });
      }
    }
    const used = new Set(fields.map((f) => f.number));
    const reserved = Object.values(locked)
      .filter((n) => !used.has(n))
      .sort((a, b) => a - b);
    fields.sort((a, b) => a.number - b.number);
    placeholder.message = { name: source.name, description: source.description, fields, reserved };
  };
  for (const source of sources) derive(source as unknown as Parameters<typeof derive>[0]);
  return [...messages.values()].map((m) => m.message);
}

/** The numbers to keep: every number given before, and those of the fields derived now. */
export function fieldNumbers(messages: readonly GrpcMessage[], before: FieldNumbers): FieldNumbers {
  const result: Record<string, Record<string, number>> = {};
  for (const message of messages) {
    const numbers: Record<string, number> = { ...before[message.name] };
    for (const field of message.fields) numbers[field.name] = field.number;
    result[message.name] = Object.fromEntries(Object.entries(numbers).sort(([, a], [, b]) => a - b));
  }
  return result;
}
