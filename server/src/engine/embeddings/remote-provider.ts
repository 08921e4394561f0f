import { createError } from '@godb/contract';
import {
  wordCount,
  type EmbeddingModelInfo,
  type EmbeddingProvider,
  type ProviderOutput,
} from './embedding-provider.js';

export type RemoteKind = 'openai' | 'ollama';

/** A model served by a remote provider, as configured. */
export interface RemoteModel {
  readonly name: string;
  readonly kind: RemoteKind;
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly dimensions: number;
}

export interface RemoteHttpOptions {
  readonly timeoutMs: number;
  /** Extra attempts after the first, on network errors, timeouts, 429 and 5xx. */
  readonly retries: number;
  /** Injected so the engine never touches timers itself. */
  readonly sleep: (ms: number) => Promise<void>;
  readonly fetch?: typeof fetch;
}

interface RemoteAnswer {
  readonly vectors: number[][];
  readonly promptTokens: number | undefined;
}

const providerLabel = (model: RemoteModel) =>
  `${model.kind === 'openai' ? 'OpenAI-compatible' : 'Ollama'} (${model.baseUrl})`;

function request(model: RemoteModel, texts: readonly string[]): { url: string; init: RequestInit } {
  const base = model.baseUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (model.apiKey) headers.authorization = `Bearer ${model.apiKey}`;
  return model.kind === 'openai'
    ? {
        url: `${base}/embeddings`,
        init: {
          method: 'POST',
          headers,
          body: JSON.stringify({ model: model.name, input: texts, encoding_format: 'float' }),
        },
      }
    : {
        url: `${base}/api/embed`,
        init: { method: 'POST', headers, body: JSON.stringify({ model: model.name, input: texts }) },
      };
}

function parse(model: RemoteModel, body: unknown, count: number): RemoteAnswer {
  const fail = (reason: string) => createError('EMBEDDING_PROVIDER_FAILED', { provider: providerLabel(model), reason });
  let vectors: unknown;
  let promptTokens: number | undefined;
  if (model.kind === 'openai') {
    const data = (body as { data?: { embedding?: unknown; index?: number }[] }).data;
    if (!Array.isArray(data)) throw fail('the answer has no "data" list');
    vectors = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding);
    promptTokens = (body as { usage?: { prompt_tokens?: number } }).usage?.prompt_tokens;
  } else {
    vectors = (body as { embeddings?: unknown }).embeddings;
    promptTokens = (body as { prompt_eval_count?: number }).prompt_eval_count;
  }
  if (!Array.isArray(vectors) || vectors.length !== count) throw fail(`expected ${count} embeddings in the answer`);
  for (const v of vectors as unknown[]) {
    if (
      !Array.isArray(v) ||
      v.length !== model.dimensions ||
      !v.every((x) => typeof x === 'number' && Number.isFinite(x))
    ) {
      throw fail(`an embedding is not a list of ${model.dimensions} numbers (check the configured dimensions)`);
    }
  }
  return { vectors: vectors as number[][], promptTokens };
}

function errorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: string | { message?: string } };
    const message = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message;
    if (message) return message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.slice(0, 200);
}

/**
 * Embeds texts with an OpenAI-compatible `/embeddings` endpoint (OpenAI, vLLM, LM Studio,
 * text-embeddings-inference) or Ollama's `/api/embed`. Network errors, timeouts, 429 and 5xx are retried with
 * exponential backoff (honouring Retry-After up to 5 s); other errors fail at once with the provider's message.
 */
export async function embedRemote(
  model: RemoteModel,
  texts: readonly string[],
  http: RemoteHttpOptions,
  signal?: AbortSignal,
): Promise<RemoteAnswer> {
  const doFetch = http.fetch ?? fetch;
  const { url, init } = request(model, texts);
  let lastReason = '';
  for (let attempt = 0; attempt <= http.retries; attempt += 1) {
    if (attempt > 0) await http.sleep(Math.min(5000, 200 * 2 ** (attempt - 1)));
    // The caller's signal (it went away, or its deadline passed) ends the fetch and every retry.
    signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(http.timeoutMs);
    let response: Response;
    try {
      response = await doFetch(url, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    } catch (error) {
      signal?.throwIfAborted();
      const name = (error as { name?: string }).name;
      lastReason =
        name === 'TimeoutError'
          ? `no answer within ${http.timeoutMs} ms`
          : `cannot reach ${url}: ${String((error as Error).message)}`;
      continue;
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      signal?.throwIfAborted();
      lastReason = `the answer was cut off: ${String((error as Error).message)}`;
      continue;
    }
    if (response.ok) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw createError('EMBEDDING_PROVIDER_FAILED', {
          provider: providerLabel(model),
          reason: 'the answer is not JSON',
        });
      }
      return parse(model, body, texts.length);
    }
    lastReason = `HTTP ${response.status}: ${errorText(text)}`;
    if (response.status !== 429 && response.status < 500) break;
    const retryAfter = Number(response.headers.get('retry-after'));
    if (Number.isFinite(retryAfter) && retryAfter > 0 && attempt < http.retries)
      await http.sleep(Math.min(5000, retryAfter * 1000));
  }
  throw createError('EMBEDDING_PROVIDER_FAILED', { provider: providerLabel(model), reason: lastReason });
}

/**
 * Parses a model list setting such as `text-embedding-3-small:1536,nomic-embed-text:768`.
 * Returns an error message naming the bad entry, or the models.
 */
export function parseRemoteModels(
  setting: string,
  kind: RemoteKind,
  baseUrl: string,
  apiKey?: string,
): RemoteModel[] | string {
  if (setting.trim() === '') return [];
  const models: RemoteModel[] = [];
  for (const entry of setting
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const match = /^(.+):(\d+)$/.exec(entry);
    if (!match) return `"${entry}" must be name:dimensions, e.g. text-embedding-3-small:1536`;
    models.push({ name: match[1]!, kind, baseUrl, dimensions: Number(match[2]), ...(apiKey && { apiKey }) });
  }
  return models;
}

/** Configured remote models (OpenAI-compatible or Ollama endpoints). */
export class RemoteProvider implements EmbeddingProvider {
  readonly #models: readonly RemoteModel[];
  readonly #http: RemoteHttpOptions;

  constructor(models: readonly RemoteModel[], http: RemoteHttpOptions) {
    this.#models = models;
    this.#http = http;
  }

  models(): EmbeddingModelInfo[] {
    return this.#models.map((m) => ({
      name: m.name,
      provider: m.kind,
      dimensions: m.dimensions,
      description: `Remote model at ${m.baseUrl}`,
    }));
  }

  async run(model: EmbeddingModelInfo, texts: string[], signal?: AbortSignal): Promise<ProviderOutput> {
    const remote = this.#models.find((m) => m.name === model.name)!;
    const answer = await embedRemote(remote, texts, this.#http, signal);
    return {
      vectors: answer.vectors.map((v) => Float32Array.from(v)),
      // The endpoint's count when it gives one for a single text; words otherwise.
      tokenCounts:
        texts.length === 1 && answer.promptTokens !== undefined ? [answer.promptTokens] : texts.map(wordCount),
    };
  }
}
