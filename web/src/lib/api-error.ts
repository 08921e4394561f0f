import { clientMessages, errorCatalogue, formatMessage, type ErrorCode } from '@godb/contract/errors';

/** An answer of the API as it came: status, the parsed body (JSON, else the text) and the text. */
export interface ApiResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly body: unknown;
  readonly text: string;
  /** A file the server sent as an attachment (a download), instead of a body to show. */
  readonly download?: { readonly blob: Blob; readonly name: string };
}

/**
 * The file name of a `content-disposition: attachment` header (RFC 6266: `filename*` first), or undefined when
 * the answer is not an attachment.
 *
 * @example attachmentName('attachment; filename="a.tar"') // 'a.tar'
 */
export function attachmentName(disposition: string | null): string | undefined {
  if (!disposition || !/^\s*attachment/i.test(disposition)) return undefined;
  const exact = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition)?.[1];
  if (exact) {
    try {
      return decodeURIComponent(exact.trim());
    } catch {
      // a malformed escape: fall back to the plain name
    }
  }
  return (
    /filename\s*=\s*"([^"]*)"/i.exec(disposition)?.[1] ??
    /filename\s*=\s*([^;\s]+)/i.exec(disposition)?.[1] ??
    'download'
  );
}

/** Thrown when the API server cannot be reached at all: there is no answer to decide on. */
export class NetworkFailure extends Error {
  constructor(readonly baseUrl: string) {
    super(formatMessage(clientMessages.networkFailure, { baseUrl }));
    this.name = 'NetworkFailure';
  }
}

/** The catalogue's codes that mean "your credentials are not accepted": every code answered with HTTP 401. */
const unauthenticatedCodes: ReadonlySet<string> = new Set(
  (Object.keys(errorCatalogue) as ErrorCode[]).filter((code) => errorCatalogue[code].http === 401),
);

const isCatalogueCode = (code: unknown): code is ErrorCode => typeof code === 'string' && code in errorCatalogue;

/**
 * An answer outside 2xx. Decisions are made on `status` and `code` (the catalogue's), never on the message: ids,
 * request ids and user data appear in messages.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly statusText: string;
  /** The catalogue's code when the answer has GoDB's error shape (a proxy's answer has none). */
  readonly code: ErrorCode | undefined;
  /** The field the error is about (`body.email`), when the server named one. */
  readonly field: string | undefined;
  /** The error message the server wrote (the catalogue's text), when the answer has one. */
  readonly serverMessage: string | undefined;
  readonly body: unknown;
  /** The answer's text, as the playground shows it. */
  readonly text: string;

  constructor(response: ApiResponse) {
    const error = typeof response.body === 'object' && response.body !== null ? errorPart(response.body) : undefined;
    super(error?.message ?? `${response.status} ${response.statusText}`.trim());
    this.status = response.status;
    this.statusText = response.statusText;
    this.code = isCatalogueCode(error?.code) ? error.code : undefined;
    this.field = typeof error?.field === 'string' ? error.field : undefined;
    this.serverMessage = error?.message;
    this.body = response.body;
    this.text = response.text;
  }

  /**
   * Whether the answer ends the session (site-spec §6: a 401 logs the visitor out): a 401 with a code the
   * catalogue answers with 401, or a 401 without GoDB's error shape (a proxy in front of the server still means
   * the token was refused). A document id `report-401` in a 404's message means nothing of the kind.
   *
   * @example new ApiError({ ok: false, status: 401, statusText: '', body: { error: { code: 'UNAUTHORIZED' } }, text: '' }).endsSession // true
   */
  get endsSession(): boolean {
    if (this.status !== 401) return false;
    const code = typeof this.body === 'object' && this.body !== null ? errorPart(this.body)?.code : undefined;
    return typeof code !== 'string' || unauthenticatedCodes.has(code);
  }

  /** The line the playground shows: `API Error: 404 Not Found - {"error":…}`. */
  get display(): string {
    return formatMessage(clientMessages.apiError, {
      status: this.status,
      statusText: this.statusText,
      body: this.text,
    });
  }
}

function errorPart(body: object): { code?: unknown; message?: string; field?: unknown } | undefined {
  if (!('error' in body) || typeof body.error !== 'object' || body.error === null) return undefined;
  const error = body.error as { code?: unknown; message?: unknown; field?: unknown };
  return { code: error.code, field: error.field, ...(typeof error.message === 'string' && { message: error.message }) };
}

/** The answer's value when it succeeded; otherwise throws its ApiError. */
export function valueOf<T>(response: ApiResponse): T {
  if (!response.ok) throw new ApiError(response);
  return response.body as T;
}

/**
 * The text of an answer: its JSON pretty-printed, its text as it came (an NDJSON answer is not one JSON value), or
 * what a downloaded file is.
 */
export function answerText(response: ApiResponse): string {
  if (response.download) {
    const { blob, name } = response.download;
    return `File ${name}: ${blob.size.toLocaleString('en')} bytes${blob.type ? ` (${blob.type})` : ''}`;
  }
  return typeof response.body === 'string' ? response.text : JSON.stringify(response.body, null, 2);
}

/** Parses an answer's text: JSON when it is JSON, else the text itself, null when empty. */
export function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text; // NDJSON or not JSON: keep the text
  }
}
