import { errorFromResponse, GoDBError, sdkMessage } from './errors.js';
import { defaultRetry, isRetryable, retryDelay, sleep } from './retry.js';
import type { CallOptions, RetryOptions, TableEntry } from './types.js';

export interface TransportOptions {
  /** Where GoDB answers, e.g. http://localhost:8081. */
  readonly url: string;
  /** An API key (POST /auth/api-keys), sent as the `api-key` header. */
  readonly apiKey?: string | undefined;
  /** A login token, sent as `Authorization: Bearer`; `login()` sets it. A token is sent instead of the key. */
  readonly token?: string | undefined;
  /** Time allowed for each attempt, in ms (default 30,000); 0 waits for ever. */
  readonly timeoutMs?: number | undefined;
  /** Retry settings (see retry.ts), or false to send every request once. */
  readonly retry?: Partial<RetryOptions> | false | undefined;
  /** Headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** The fetch to use (default: the global one), e.g. one with a proxy agent. */
  readonly fetch?: typeof fetch | undefined;
}

type Input = Readonly<Record<string, unknown>>;

/** The body and headers of a request, before auth and per-call headers. */
export interface Outgoing {
  readonly body?: BodyInit | undefined;
  readonly contentType?: string | undefined;
  /** Set for a streamed body, which fetch needs to know. */
  readonly duplex?: 'half' | undefined;
}

const noRetry: RetryOptions = { retries: 0, baseDelayMs: 0, maxDelayMs: 0 };

/** Sends the requests of a client: URLs from the table, auth, per-attempt timeouts, retries, typed errors. */
export class Transport {
  readonly #base: string;
  readonly #options: TransportOptions;
  readonly #fetch: typeof fetch;
  #token: string | undefined;

  constructor(options: TransportOptions) {
    this.#base = options.url.replace(/\/+$/, '');
    this.#options = options;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#token = options.token;
  }

  get token(): string | undefined {
    return this.#token;
  }

  set token(token: string | undefined) {
    this.#token = token;
  }

  /** The URL of an operation: path parameters filled in from `input`, its query keys as the query string. */
  url(entry: TableEntry, input: Input): string {
    const path = entry.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
      const value = input[name];
      if (value === undefined || value === null || value === '') {
        throw new GoDBError({
          code: 'MISSING_PATH_PARAM',
          message: sdkMessage('sdkMissingPathParam', { name, path: entry.path }),
          status: 0,
          field: `params.${name}`,
        });
      }
      return encodeURIComponent(String(value));
    });
    const query = new URLSearchParams();
    for (const key of entry.query) {
      const value = input[key];
      if (value === undefined) continue;
      query.set(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
    }
    const search = query.size > 0 ? `?${query.toString()}` : '';
    return `${this.#base}${path}${search}`;
  }

  /** The JSON body of an operation: the input without its path and query keys, or `input.body` for an array. */
  jsonBody(entry: TableEntry, input: Input): Outgoing {
    if (entry.body === 'none') return {};
    if (entry.body === 'binary') {
      // The operation's declared type (a snapshot archive is application/x-tar); a stream is sent as it is read.
      const body = input.body as BodyInit;
      return {
        body,
        contentType: entry.contentType ?? 'application/octet-stream',
        ...(body instanceof ReadableStream && { duplex: 'half' as const }),
      };
    }
    if (entry.body === 'value') return { body: JSON.stringify(input.body), contentType: 'application/json' };
    const pathKeys = [...entry.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const skip = new Set<string | undefined>([...pathKeys, ...entry.query]);
    const fields = Object.fromEntries(Object.entries(input).filter(([key]) => !skip.has(key)));
    return { body: JSON.stringify(fields), contentType: 'application/json' };
  }

  #headers(outgoing: Outgoing, options: CallOptions): Headers {
    const headers = new Headers(this.#options.headers);
    headers.set('accept', 'application/json');
    if (outgoing.contentType) headers.set('content-type', outgoing.contentType);
    // Both at once answer 401: a token (after login) wins over the key.
    if (this.#token !== undefined) headers.set('authorization', `Bearer ${this.#token}`);
    else if (this.#options.apiKey !== undefined) headers.set('api-key', this.#options.apiKey);
    for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
    return headers;
  }

  #retry(options: CallOptions): RetryOptions {
    if (options.retry === false || this.#options.retry === false) return noRetry;
    return { ...defaultRetry, ...this.#options.retry, ...options.retry };
  }

  /**
   * Sends a request and hands its successful answer to `read` within the same attempt (so the timeout covers
   * reading the body when `read` does), retrying refused and failed attempts as retry.ts says. An error answer
   * becomes a GoDBError; an abort by the caller rejects with the signal's reason.
   */
  async send<T>(
    entry: TableEntry,
    url: string,
    outgoing: () => Outgoing,
    options: CallOptions,
    read: (response: Response) => Promise<T>,
  ): Promise<T> {
    const retry = this.#retry(options);
    for (let attempt = 0; ; attempt += 1) {
      const error = await this.#attempt(entry, url, outgoing(), options, read);
      if (!(error instanceof GoDBError)) return error.value;
      const wait =
        attempt < retry.retries && isRetryable(error, entry.idempotent)
          ? retryDelay(attempt, error.retryAfter, retry)
          : null;
      if (wait === null) throw error;
      await sleep(wait, options.signal);
    }
  }

  async #attempt<T>(
    entry: TableEntry,
    url: string,
    outgoing: Outgoing,
    options: CallOptions,
    read: (response: Response) => Promise<T>,
  ): Promise<GoDBError | { value: T }> {
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? 30_000;
    const timeout = new AbortController();
    const timer = timeoutMs > 0 ? setTimeout(() => timeout.abort(), timeoutMs) : undefined;
    const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
    const init: RequestInit & { duplex?: 'half' } = {
      method: entry.method,
      headers: this.#headers(outgoing, options),
      signal,
      ...(outgoing.body !== undefined && { body: outgoing.body }),
      ...(outgoing.duplex && { duplex: outgoing.duplex }),
    };
    try {
      const response = await this.#fetch(url, init);
      if (!response.ok) return await errorFromResponse(response);
      return { value: await read(response) };
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (timeout.signal.aborted) {
        return new GoDBError({
          code: 'CLIENT_TIMEOUT',
          message: sdkMessage('sdkTimeout', { method: entry.method, path: entry.path, timeout_ms: timeoutMs }),
          status: 0,
          cause: error,
        });
      }
      if (error instanceof GoDBError) return error;
      return new GoDBError({
        code: 'NETWORK_ERROR',
        message: sdkMessage('sdkNetworkFailure', { url: this.#base, reason: reasonOf(error) }),
        status: 0,
        cause: error,
      });
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The most telling message of a fetch failure (undici puts the system error in `cause`). */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  if (cause?.code) return cause.code;
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}
