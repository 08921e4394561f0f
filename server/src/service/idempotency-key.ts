import { createError, idempotencyKeyHeader } from '@godb/contract';

const valid = new RegExp(idempotencyKeyHeader.pattern);

/**
 * The Idempotency-Key a transport received (an HTTP header, gRPC metadata), checked against the contract's pattern;
 * undefined when absent. `field` names where it came from in a VALIDATION_FAILED.
 *
 * @example idempotencyKeyOf(request.headers['idempotency-key'], 'headers.idempotency-key');
 */
export function idempotencyKeyOf(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !valid.test(value)) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: 'Idempotency-Key is 1-128 letters, digits and the characters - _ . :' },
      { field },
    );
  }
  return value;
}
