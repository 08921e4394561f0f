import type { FastifyInstance } from 'fastify';
import { compileText, jsonValidator } from '../../service/validation.js';

/** Fastify validates with the service layer's validators, so REST and gRPC check alike. */
export function installValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? jsonValidator.compile(schema) : compileText(schema),
  );
}
