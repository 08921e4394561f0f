import { clientMessages, formatMessage } from '@godb/contract/errors';
import { apiBaseUrl } from '../config/env';

export interface ApiResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly body: unknown;
  readonly text: string;
}

/** Thrown when the API server cannot be reached at all. */
export class NetworkFailure extends Error {
  constructor(readonly baseUrl: string) {
    super(formatMessage(clientMessages.networkFailure, { baseUrl }));
    this.name = 'NetworkFailure';
  }
}

/**
 * The one API client of the site: JSON in and out, the bearer token when given. Answers every HTTP outcome;
 * throws NetworkFailure only when nothing answered.
 */
export async function apiRequest(
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown; query?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const base = apiBaseUrl();
  const search =
    options.query && Object.keys(options.query).length > 0 ? `?${new URLSearchParams(options.query).toString()}` : '';
  let res: Response;
  try {
    res = await fetch(`${base}${path}${search}`, {
      method,
      headers: {
        ...(options.body !== undefined && { 'content-type': 'application/json' }),
        ...(options.token && { authorization: `Bearer ${options.token}` }),
      },
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
    });
  } catch {
    throw new NetworkFailure(base);
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { ok: res.ok, status: res.status, statusText: res.statusText, body, text };
}

/**
 * Sends a file as the raw body (an NDJSON import), reporting the upload's progress, which fetch() cannot. The
 * answer is kept as text (an NDJSON answer is not one JSON value). Throws NetworkFailure when nothing answered.
 */
export function apiUpload(
  path: string,
  options: {
    token?: string | null;
    query?: Record<string, string>;
    file: Blob;
    contentType: string;
    onProgress: (sent: number, total: number) => void;
  },
): Promise<ApiResponse> {
  const base = apiBaseUrl();
  const search =
    options.query && Object.keys(options.query).length > 0 ? `?${new URLSearchParams(options.query).toString()}` : '';
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${base}${path}${search}`);
    xhr.setRequestHeader('content-type', options.contentType);
    if (options.token) xhr.setRequestHeader('authorization', `Bearer ${options.token}`);
    xhr.upload.onprogress = (e) => options.onProgress(e.loaded, e.lengthComputable ? e.total : options.file.size);
    xhr.onerror = () => reject(new NetworkFailure(base));
    xhr.onload = () => {
      const text = xhr.responseText;
      let body: unknown = text;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        // NDJSON or not JSON: keep the text
      }
      resolve({ ok: xhr.status < 400, status: xhr.status, statusText: xhr.statusText, body, text });
    };
    xhr.send(options.file);
  });
}
