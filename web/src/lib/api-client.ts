import type { CatalogueOperation } from '@godb/contract';
import { apiBaseUrl } from '../config/env';
import { attachmentName, NetworkFailure, parseBody, valueOf, type ApiResponse } from './api-error';
import { operationPath } from './operation-path';

export { ApiError, NetworkFailure, answerText, valueOf, type ApiResponse } from './api-error';
export { apiV1Path, operationPath } from './operation-path';

export interface RequestOptions {
  readonly token?: string | null;
  readonly query?: Readonly<Record<string, string>>;
  /** A JSON body. */
  readonly body?: unknown;
  /** A file sent as it is as the body, with its content type and the upload's progress. */
  readonly file?: { readonly blob: Blob; readonly contentType: string };
  readonly onProgress?: (sent: number, total: number) => void;
}

const queryString = (query: RequestOptions['query']) =>
  query && Object.keys(query).length > 0 ? `?${new URLSearchParams(query).toString()}` : '';

/**
 * The one fetcher of the site: JSON in and out (or a file as the body, with its upload's progress), the bearer
 * token when given. Answers every HTTP outcome as it came; throws NetworkFailure only when nothing answered.
 *
 * @example const res = await apiRequest('GET', '/api/v1/embeddings/models', { token });
 */
export async function apiRequest(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const url = `${apiBaseUrl()}${path}${queryString(options.query)}`;
  if (options.file) return upload(method, url, options.file, options);
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        ...(options.body !== undefined && { 'content-type': 'application/json' }),
        ...(options.token && { authorization: `Bearer ${options.token}` }),
      },
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
    });
  } catch {
    throw new NetworkFailure(apiBaseUrl());
  }
  // A file the server sends as an attachment (a snapshot archive, a stored PDF) is kept as it came, to be saved.
  const name = res.ok ? attachmentName(res.headers.get('content-disposition')) : undefined;
  if (name !== undefined) {
    const blob = await res.blob();
    return { ok: true, status: res.status, statusText: res.statusText, body: null, text: '', download: { blob, name } };
  }
  const text = await res.text();
  return { ok: res.ok, status: res.status, statusText: res.statusText, body: parseBody(text), text };
}

/**
 * Sends a file as the raw body (an NDJSON import, a snapshot archive), reporting the upload's progress, which
 * fetch() cannot.
 */
function upload(
  method: string,
  url: string,
  file: NonNullable<RequestOptions['file']>,
  options: RequestOptions,
): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    xhr.setRequestHeader('content-type', file.contentType);
    if (options.token) xhr.setRequestHeader('authorization', `Bearer ${options.token}`);
    xhr.upload.onprogress = (e) => options.onProgress?.(e.loaded, e.lengthComputable ? e.total : file.blob.size);
    xhr.onerror = () => reject(new NetworkFailure(apiBaseUrl()));
    xhr.onload = () => {
      const text = xhr.responseText;
      resolve({ ok: xhr.status < 400, status: xhr.status, statusText: xhr.statusText, body: parseBody(text), text });
    };
    xhr.send(file.blob);
  });
}

/**
 * Calls an operation of the catalogue: its method and /api/v1 path (parameters substituted) come from the
 * contract. Answers the success body; throws ApiError for any other answer, NetworkFailure when none came.
 *
 * @example await callOperation<{ keys: ApiKey[] }>(operationById('list-api-keys'), { token, query: { limit: '500' } });
 */
export async function callOperation<T>(
  op: CatalogueOperation,
  input: RequestOptions & { readonly params?: Readonly<Record<string, string>> } = {},
): Promise<T> {
  const { params, ...options } = input;
  return valueOf<T>(await apiRequest(op.http.method, operationPath(op, params), options));
}
