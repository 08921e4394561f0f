import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// ajv-formats is CommonJS: imported from ESM, its default export is the `default` property of module.exports.
const addFormats = addFormatsModule.default;

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: false, useDefaults: true, removeAdditional: false, ...options });
  addFormats(ajv);
  return ajv;
}

/**
 * Validation against the contract's schemas. Query strings and path parameters are text, so they are coerced to
 * the schema's types (and repeated keys to arrays); JSON bodies are not: a number stays a number, a string that
 * looks like one stays a string.
 */
export function installValidators(app: FastifyInstance): void {
  const textAjv = createAjv({ coerceTypes: 'array' });
  const jsonAjv = createAjv({ coerceTypes: false });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? jsonAjv : textAjv).compile(schema));
}
