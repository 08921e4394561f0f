import type { ErrorCode } from '@godb/contract';
import { sdkMessages } from './operations.generated.js';

/** Failures of the client itself, when no answer of the server explains what went wrong. */
export type ClientErrorCode = 'NETWORK_ERROR' | 'CLIENT_TIMEOUT' | 'UNEXPECTED_ANSWER' | 'MISSING_PATH_PARAM';
export type GoDBErrorCode = ErrorCode | ClientErrorCode;

export interface GoDBErrorInit {
  readonly code: GoDBErrorCode;
  readonly message: string;
  /** HTTP status of the answer; 0 when there was none. */
  readonly status: number;
  readonly field?: string | undefined;
  readonly requestId?: string | undefined;
  readonly details?: Readonly<Record<string, unknown>> | undefined;
  /** Seconds the server asked to wait (Retry-After), on 429 and 503. */
  readonly retryAfter?: number | undefined;
  readonly cause?: unknown;
}

/**
 * An error answered by GoDB (its catalogue `code`, `status`, the offending `field`, the `requestId` that is also in
 * the server's log) or raised by the client (`NETWORK_ERROR`, `CLIENT_TIMEOUT`, `UNEXPECTED_ANSWER`,
 * `MISSING_PATH_PARAM`, with status 0 when nothing was answered).
 *
 * @example
 *   try { await client.collections.get({ name: 'nope' }); }
 *   catch (error) { if (error instanceof GoDBError && error.code === 'NOT_FOUND') ... }
 */
export class GoDBError extends Error {
  readonly code: GoDBErrorCode;
  readonly status: number;
  readonly field: string | undefined;
  readonly requestId: string | undefined;
  readonly details: Readonly<Record<string, unknown>> | undefined;
  readonly retryAfter: number | undefined;

  constructor(init: GoDBErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'GoDBError';
    this.code = init.code;
    this.status = init.status;
    this.field = init.field;
    this.requestId = init.requestId;
    this.details = init.details;
    this.retryAfter = init.retryAfter;
  }
}

export type SdkMessage = keyof typeof sdkMessages;

/** A message of the contract's catalogue with its `{name}` placeholders filled in. */
export function sdkMessage(key: SdkMessage, params: Readonly<Record<string, string | number>>): string {
  return sdkMessages[key].replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole,
  );
}

interface ErrorEnvelope {
  readonly error: {
    readonly code: ErrorCode;
    readonly message: string;
    readonly status?: number;
    readonly field?: string;
    readonly details?: Record<string, unknown>;
    readonly request_id?: string;
  };
}

const isEnvelope = (value: unknown): value is ErrorEnvelope => {
  const error = (value as { error?: unknown } | null)?.error as Record<string, unknown> | undefined;
  return typeof error?.code === 'string' && typeof error.message === 'string';
};

/** Parses Retry-After: seconds, or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/** The GoDBError an error answer stands for; reads the body. */
export async function errorFromResponse(response: Response): Promise<GoDBError> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (!isEnvelope(parsed)) {
    return new GoDBError({
      code: 'UNEXPECTED_ANSWER',
      message: sdkMessage('sdkUnexpectedAnswer', { status: response.status, body: text.slice(0, 200) }),
      status: response.status,
      requestId,
      retryAfter,
    });
  }
  const { error } = parsed;
  return new GoDBError({
    code: error.code,
    message: error.message,
    status: response.status,
    field: error.field,
    requestId: error.request_id ?? requestId,
    details: error.details,
    retryAfter,
  });
}
