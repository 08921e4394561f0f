import { Ajv, type ErrorObject, type Options, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import {
  createError,
  emailRegExp,
  emailRuleMessage,
  fixedAtCreation,
  isoDatePattern,
  type GoDBError,
} from '@godb/contract';

// ajv-formats is CommonJS: imported from ESM, its default export is the `default` property of module.exports.
const addFormats = addFormatsModule.default;

/** The `fixedAtCreation` keyword: the first creation-only field the data carries, with its reason. */
const refuseFixed: SchemaValidateFunction = (reasons: Record<string, string>, data: Record<string, unknown>) => {
  const field = Object.keys(reasons).find((key) => Object.hasOwn(data, key));
  if (field === undefined) return true;
  refuseFixed.errors = [{ keyword: fixedAtCreation, instancePath: `/${field}`, params: { reason: reasons[field] } }];
  return false;
};

function createAjv(options: Options): Ajv {
  // strictNumbers: JSON's 1e309 parses as Infinity (and a query string's "1e309" coerces to it), which would
  // otherwise pass every integer and maximum check.
  const ajv = new Ajv({
    strict: false,
    strictNumbers: true,
    allErrors: false,
    useDefaults: true,
    removeAdditional: false,
    ...options,
  });
  addFormats(ajv);
  // The contract's e-mail rule, which the website's forms check too, in place of ajv-formats' own.
  ajv.addFormat('email', emailRegExp);
  // A creation-only field in an update body is refused with the reason it cannot change, before it would be
  // reported as unknown (`additionalProperties`).
  ajv.addKeyword({
    keyword: fixedAtCreation,
    type: 'object',
    schemaType: 'object',
    before: 'additionalProperties',
    errors: true,
    validate: refuseFixed,
  });
  return ajv;
}

/**
 * Validators of the contract's schemas, shared by every transport. Query strings and path parameters are text,
 * so they are coerced to the schema's types; JSON (and gRPC) bodies are not.
 */
export const textValidator = createAjv({ coerceTypes: 'array' });
export const jsonValidator = createAjv({ coerceTypes: false });

/** The first number in a flat object (or its arrays) that is not finite, as an AJV-style issue. */
function nonFinite(data: unknown): ErrorObject | undefined {
  if (!data || typeof data !== 'object') return undefined;
  for (const [key, value] of Object.entries(data)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'number' && !Number.isFinite(v))) {
      return {
        instancePath: `/${key}`,
        schemaPath: '#',
        keyword: 'type',
        params: {},
        message: 'must be a finite number',
      };
    }
  }
  return undefined;
}

/**
 * Compiles a validator of text input (query strings, path parameters). AJV coerces "1e309" to Infinity after its
 * own finiteness check, so the coerced values are checked once more here.
 *
 * @example const validate = compileText(operation.query); if (!validate(query)) throw validationError(validate.errors?.[0], 'query');
 */
export function compileText(schema: object): ValidateFunction {
  const validate = textValidator.compile(schema);
  const checked = ((data: unknown) => {
    checked.errors = null;
    if (!validate(data)) {
      checked.errors = validate.errors ?? null;
      return false;
    }
    const issue = nonFinite(data);
    if (issue) checked.errors = [issue];
    return issue === undefined;
  }) as ValidateFunction;
  return checked;
}

/** `/acl/0/role` in the body → `body.acl[0].role`. */
export function fieldPath(location: string, instancePath: string, leaf?: unknown): string {
  const segments = instancePath.split('/').filter(Boolean);
  if (typeof leaf === 'string') segments.push(leaf);
  return segments.reduce(
    (path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : `${path}.${segment}`),
    location,
  );
}

/** The first validation issue as a catalogue error naming the field. */
export function validationError(
  issue: Pick<ErrorObject, 'instancePath' | 'keyword' | 'message' | 'params'> | undefined,
  location: string,
): GoDBError {
  if (!issue) return createError('VALIDATION_FAILED', { detail: `${location} is invalid` });
  const params = issue.params as Record<string, unknown>;
  if (issue.keyword === 'required') {
    const field = fieldPath(location, issue.instancePath, params.missingProperty);
    // The specification's message for a search without its query (text, fuzzy, the search box) is exact.
    if (issue.instancePath === '' && params.missingProperty === 'query') {
      return createError('QUERY_REQUIRED', {}, { field });
    }
    return createError('VALIDATION_FAILED', { detail: `${field} is required` }, { field });
  }
  if (issue.keyword === 'additionalProperties') {
    const field = fieldPath(location, issue.instancePath, params.additionalProperty);
    return createError(
      'VALIDATION_FAILED',
      { detail: `${field} is not a known field: check its spelling against the API reference` },
      { field },
    );
  }
  const field = fieldPath(location, issue.instancePath);
  if (issue.keyword === fixedAtCreation) {
    return createError('VALIDATION_FAILED', { detail: `${field} ${String(params.reason)}` }, { field });
  }
  if (issue.keyword === 'pattern' && params.pattern === isoDatePattern) {
    return createError(
      'VALIDATION_FAILED',
      { detail: `${field} must be Unix seconds or an ISO 8601 date such as 2024-05-01 or 2024-05-01T12:00:00Z` },
      { field },
    );
  }
  if (issue.keyword === 'format' && params.format === 'email') {
    return createError('VALIDATION_FAILED', { detail: `${field} ${emailRuleMessage}` }, { field });
  }
  const allowed = Array.isArray(params.allowedValues) ? `: ${params.allowedValues.join(', ')}` : '';
  return createError('VALIDATION_FAILED', { detail: `${field} ${issue.message ?? 'is invalid'}${allowed}` }, { field });
}

const compiled = new WeakMap<TSchema, ValidateFunction>();

/** Validates (and fills defaults into) a JSON value; throws VALIDATION_FAILED naming the field. */
export function validateJson(schema: TSchema, value: unknown, location: string): void {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = jsonValidator.compile(schema);
    compiled.set(schema, validate);
  }
  if (!validate(value)) throw validationError(validate.errors?.[0], location);
}
