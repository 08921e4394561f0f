import { createError, type ErrorCode } from '@godb/contract';

/**
 * A structured parameter given either as is or as its JSON text (forms and query strings send JSON as strings).
 * Text that is not JSON answers `code` with the parser's reason, on `field`.
 */
export function jsonInput(raw: unknown, code: ErrorCode, field: string): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw createError(code, { reason: (error as Error).message }, { field });
  }
}
