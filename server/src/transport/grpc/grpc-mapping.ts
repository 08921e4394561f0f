import { createError, grpcMessages, type ErrorCode, type GrpcField, type GrpcMessage } from '@godb/contract';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const messages = new Map(grpcMessages.map((m) => [m.name, m]));
const messageNamed = (name: string): GrpcMessage => {
  const message = messages.get(name);
  if (!message) throw new TypeError(`no gRPC message ${name}`);
  return message;
};

/** A value given: proto3 sends no zero values, so '', 0, false and [] mean "not given" (unless presence is tracked). */
const given = (field: GrpcField, value: unknown) =>
  field.optional
    ? value !== undefined && value !== null
    : value !== undefined && value !== null && value !== '' && value !== 0 && value !== false;

const zeroOf = (field: GrpcField): unknown =>
  field.type === 'bool' ? false : /^(int|double|float)/.test(field.type) ? 0 : undefined;

/** JSON-text fields whose bad JSON has its own code over REST, answered the same here (same message, same field). */
const jsonErrors: Readonly<Record<string, ErrorCode>> = { filters: 'INVALID_FILTERS_JSON' };

function parseJson(field: GrpcField, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = (error as Error).message;
    const code = jsonErrors[field.key];
    if (code) throw createError(code, { reason }, { field: `body.${field.key}` });
    throw createError(
      'VALIDATION_FAILED',
      { detail: `${field.name} is not valid JSON: ${reason}` },
      { field: field.name },
    );
  }
}

/**
 * A decoded gRPC message as the JSON its schema describes (REST's property names, nested objects, JSON text parsed): what is not given is left out, so REST's defaults apply. A nested message
 * with nothing in it is not given either; one with something in it gets its required numbers' zero values.
 *
 * @example fromGrpc('GetUserRequest', { user_id: 'u1' }) // { userID: 'u1' }
 */
export function fromGrpc(name: string, request: Json): Json {
  const message = messageNamed(name);
  const result: Json = {};
  for (const field of message.fields) {
    const value = request[field.name];
    if (messages.has(field.type)) {
      const convert = (v: unknown) => (isObject(v) ? fromGrpc(field.type, v) : undefined);
      const converted = field.repeated
        ? (Array.isArray(value) ? value : []).map(convert).filter((v) => v && Object.keys(v).length > 0)
        : convert(value);
      if (Array.isArray(converted) ? converted.length > 0 : converted && Object.keys(converted).length > 0)
        result[field.key] = converted;
    } else if (field.repeated || field.type.startsWith('map<')) {
      if (Array.isArray(value) ? value.length > 0 : isObject(value) && Object.keys(value).length > 0)
        result[field.key] = value;
    } else if (field.encoding === 'json') {
      if (given(field, value)) result[field.key] = parseJson(field, String(value));
    } else if (given(field, value)) result[field.key] = value;
  }
  if (Object.keys(result).length > 0)
    for (const field of message.fields)
      if (field.required && result[field.key] === undefined && zeroOf(field) !== undefined)
        result[field.key] = zeroOf(field);
  return result;
}

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * An answer (JSON as its schema describes it) as the gRPC message `name`: proto names, JSON text for structured
 * values, map values as text where the schema allows any JSON.
 *
 * @example toGrpc('GetUserResponse', { id: 'u1', roles: ['admin'] })
 */
export function toGrpc(name: string, value: Json): Json {
  const result: Json = {};
  for (const field of messageNamed(name).fields) {
    const v = value[field.key];
    if (v === undefined || v === null) continue;
    if (messages.has(field.type))
      result[field.name] = field.repeated
        ? (v as Json[]).map((item) => toGrpc(field.type, item))
        : toGrpc(field.type, v as Json);
    else if (field.encoding === 'text-map')
      result[field.name] = Object.fromEntries(Object.entries(v as Json).map(([k, x]) => [k, asText(x)]));
    else if (field.encoding === 'json') result[field.name] = JSON.stringify(v);
    else result[field.name] = v;
  }
  return result;
}
