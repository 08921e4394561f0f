import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';

// ajv-formats is CommonJS: imported from ESM, its default export is the `default` property of module.exports.
const addFormats = addFormatsModule.default;

/**
 * An Ajv configured like the server's validator (Fastify's defaults plus formats), for contract tests; with
 * `dialect: '2020-12'`, one that reads the OpenAPI document's schemas (JSON Schema 2020-12) instead.
 */
export function createValidator(options: {
  coerce: boolean;
  dialect?: '2020-12';
}): (schema: TSchema, value: unknown) => string | null {
  const ajv = new (options.dialect === '2020-12' ? Ajv2020 : Ajv)({
    strict: false,
    allErrors: true,
    useDefaults: true,
    coerceTypes: options.coerce ? 'array' : false,
  });
  addFormats(ajv);
  return (schema, value) => {
    const validate = ajv.compile(schema);
    const copy: unknown = structuredClone(value);
    return validate(copy) ? null : ajv.errorsText(validate.errors);
  };
}
