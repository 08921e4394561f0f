import type { TSchema } from '@sinclair/typebox';
import type { FieldHint, FieldKind, OperationSpec, PlaygroundExtraField } from './define-operation.js';
import { errorCatalogue } from './errors.js';

export type FieldLocation = 'path' | 'query' | 'body' | 'raw-body' | 'client';

/** One form field of the playground, derived from an operation's schemas and hints. */
export interface PlaygroundField {
  readonly name: string;
  readonly label: string;
  readonly in: FieldLocation;
  readonly kind: FieldKind;
  readonly placeholder: string;
  readonly required: boolean;
  readonly default: string | number | boolean | undefined;
  readonly options: readonly string[] | undefined;
  readonly description: string;
  /** JSON-schema type of the value sent: how the form's text is converted (a date: to Unix seconds). */
  readonly valueType: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'json' | 'date';
  readonly accept: string | undefined;
  /** The message when a required field is left empty; undefined: '<label> is required'. */
  readonly requiredMessage: string | undefined;
  /** The message template ({reason}) when a JSON field does not parse; undefined: 'Invalid JSON in <name>'. */
  readonly jsonMessage: string | undefined;
  /** A starting value only the browser knows (see FieldHint.initial). */
  readonly initial: FieldHint['initial'];
  /** A file field: sent as the request body, or read into other fields (see PlaygroundExtraField). */
  readonly sends: PlaygroundExtraField['sends'];
  readonly fills: PlaygroundExtraField['fills'];
}

/**
 * How an operation's request carries its input: nothing but the URL, a JSON body, or a file streamed as the body
 * with its content type (an NDJSON import, a snapshot archive).
 */
export type RequestBody =
  { readonly kind: 'none' } | { readonly kind: 'json' } | { readonly kind: 'file'; readonly contentType: string };

/**
 * The body kind of an operation, from its definition: `ndjson` and `binary` stream a file, a `body` schema is JSON.
 *
 * @example requestBodyOf(operationById('upload-snapshot')) // { kind: 'file', contentType: 'application/x-tar' }
 */
export function requestBodyOf(operation: OperationSpec): RequestBody {
  if (operation.ndjson) return { kind: 'file', contentType: 'application/x-ndjson' };
  if (operation.binary) return { kind: 'file', contentType: operation.binary.contentType };
  return operation.body ? { kind: 'json' } : { kind: 'none' };
}

/** The catalogue message of a JSON field that does not parse, for the fields whose errors have their own code. */
const jsonMessages: Readonly<Record<string, string>> = {
  filters: errorCatalogue.INVALID_FILTERS_JSON.message,
  feedback: errorCatalogue.INVALID_FEEDBACK_JSON.message,
  vector: errorCatalogue.INVALID_VECTOR_FORMAT.message,
};

interface JsonSchemaLike {
  type?: string | string[];
  anyOf?: JsonSchemaLike[];
  const?: unknown;
  enum?: unknown[];
  default?: unknown;
  description?: string;
  properties?: Record<string, JsonSchemaLike>;
  required?: string[];
  items?: JsonSchemaLike;
}

function literalOptions(schema: JsonSchemaLike): string[] | undefined {
  if (schema.enum) return schema.enum.map(String);
  if (schema.anyOf && schema.anyOf.length > 0 && schema.anyOf.every((s) => s.const !== undefined)) {
    return schema.anyOf.map((s) => String(s.const));
  }
  return undefined;
}

function valueTypeOf(schema: JsonSchemaLike): PlaygroundField['valueType'] {
  const options = schema.anyOf?.map((s) => s.const);
  if (options && options.length > 0 && options.every((o) => typeof o === 'number')) return 'number';
  // A date field (DateInput) takes Unix seconds or an ISO date: typed as text, sent as Unix seconds.
  if (Array.isArray(schema.type) && schema.type.includes('string')) {
    return schema.type.includes('integer') ? 'date' : 'string';
  }
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'integer':
      return 'integer';
    case 'boolean':
      return 'boolean';
    case 'array':
      return schema.items?.type === 'string' ? 'array' : 'json';
    default:
      return schema.anyOf?.every((s) => s.const !== undefined) ? 'string' : 'json';
  }
}

function kindOf(schema: JsonSchemaLike, valueType: PlaygroundField['valueType']): FieldKind {
  if (literalOptions(schema) || valueType === 'boolean') return 'select';
  if (valueType === 'number' || valueType === 'integer') return 'number';
  if (valueType === 'json') return 'textarea';
  return 'text';
}

/** The hint of a select: its choices, as a sentence ('Choose match, phrase or wildcard'). */
function choices(options: readonly string[]): string {
  const list = options.length > 1 ? `${options.slice(0, -1).join(', ')} or ${options.at(-1) ?? ''}` : options.join('');
  return `Choose ${list}`;
}

function humanise(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function fieldsOf(
  schema: TSchema | undefined,
  location: FieldLocation,
  hints: Readonly<Record<string, FieldHint>>,
  hidden: ReadonlySet<string>,
): PlaygroundField[] {
  const object = schema as JsonSchemaLike | undefined;
  if (!object?.properties) return [];
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties)
    .filter(([name]) => !hidden.has(name))
    .map(([name, property]) => {
      const hint = hints[name] ?? {};
      const valueType = valueTypeOf(property);
      const options =
        hint.options ?? literalOptions(property) ?? (valueType === 'boolean' ? ['true', 'false'] : undefined);
      const fallback = property.default;
      const isRequired = hint.required ?? (location === 'path' || (required.has(name) && fallback === undefined));
      const kind = hint.kind ?? kindOf(property, valueType);
      // A select shows its first option when nothing is chosen, so a required one sends that option: what the
      // user sees is what is sent (issue 20: "add" shown, nothing sent).
      const defaultValue =
        hint.default ??
        (typeof fallback === 'string' || typeof fallback === 'number' || typeof fallback === 'boolean'
          ? fallback
          : kind === 'select' && isRequired
            ? options?.[0]
            : undefined);
      return {
        name,
        label: hint.label ?? humanise(name),
        in: location,
        kind,
        placeholder: hint.placeholder ?? property.description ?? (options ? choices(options) : ''),
        required: isRequired,
        default: defaultValue,
        options,
        description: property.description ?? '',
        valueType,
        accept: hint.accept,
        requiredMessage: hint.requiredMessage,
        jsonMessage: valueType === 'json' ? jsonMessages[name] : undefined,
        initial: hint.initial ?? (name === 'model_name' ? 'default-model' : undefined),
        sends: undefined,
        fills: undefined,
      };
    });
}

/**
 * The playground form of an operation: path parameters, then query, then body fields, then client-only fields.
 *
 * @example playgroundFields(operations.find((o) => o.id === 'login')!).map((f) => f.name) // ['email', 'password', 'tenant_id']
 */
export function playgroundFields(operation: OperationSpec): PlaygroundField[] {
  const hints = operation.playground?.hints ?? {};
  const hidden = new Set(operation.playground?.hidden ?? []);
  const body = operation.body as JsonSchemaLike | undefined;
  const bodyFields: PlaygroundField[] =
    body && !body.properties
      ? [
          {
            name: 'body',
            label: hints.body?.label ?? 'Request body (JSON)',
            in: 'raw-body',
            kind: 'textarea',
            placeholder: hints.body?.placeholder ?? body.description ?? '',
            required: true,
            default: hints.body?.default,
            options: undefined,
            description: body.description ?? '',
            valueType: 'json',
            accept: undefined,
            requiredMessage: hints.body?.requiredMessage,
            jsonMessage: undefined,
            initial: undefined,
            sends: undefined,
            fills: undefined,
          },
        ]
      : fieldsOf(operation.body, 'body', hints, hidden);
  const extra: PlaygroundField[] = (operation.playground?.extraFields ?? []).map((f) => ({
    name: f.name,
    label: f.label ?? humanise(f.name),
    in: 'client',
    kind: f.kind,
    placeholder: f.placeholder ?? '',
    required: f.required ?? false,
    default: f.default,
    options: f.options,
    description: f.description,
    valueType: 'string',
    accept: f.accept,
    requiredMessage: f.requiredMessage,
    jsonMessage: undefined,
    initial: f.initial,
    sends: f.sends,
    fills: f.fills,
  }));
  return [
    ...fieldsOf(operation.params, 'path', hints, hidden),
    ...fieldsOf(operation.query, 'query', hints, hidden),
    ...bodyFields,
    ...extra,
  ];
}
