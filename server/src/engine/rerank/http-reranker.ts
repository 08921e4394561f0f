import { createError } from '@godb/contract';
import type { Reranker } from './reranker.js';

/** An HTTP reranker of RERANK_MODELS: its name, protocol and base URL (from configuration only, never a request). */
export interface HttpRerankerConfig {
  readonly name: string;
  readonly protocol: 'tei' | 'cohere';
  readonly baseUrl: string;
  readonly apiKey?: string | undefined;
}

/** Characters of one text sent at most: cross-encoders read a few hundred tokens, so more only costs transfer. */
export const maxRerankTextChars = 8_000;

/** Bytes of a reranker's answer read at most: 200 scores take a few KiB; more is not a rerank answer. */
const maxAnswerBytes = 4 << 20;

/** The answer's text, or undefined past `cap` bytes (the rest is not read). */
async function textUpTo(response: Response, cap: number): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A reranker behind HTTP: Text Embeddings Inference's `POST /rerank` ({query, texts} → [{index, score}]) or
 * Cohere's `POST /v1/rerank` ({model, query, documents, top_n} → {results: [{index, relevance_score}]}). The answer
 * is checked to hold exactly one finite score per text; anything else is RERANKER_FAILED (502), a network error or
 * the deadline RERANKER_UNAVAILABLE (503), both naming the model. The messages reach any searching user, so they name
 * the model and the status only — not the configured address nor the reranker's own words; redirects are refused
 * (the operator configured this address, not another) and the answer is read up to 4 MiB.
 */
export class HttpReranker implements Reranker {
  readonly name: string;
  readonly kind: 'tei' | 'cohere';
  readonly #config: HttpRerankerConfig;

  constructor(config: HttpRerankerConfig) {
    this.name = config.name;
    this.kind = config.protocol;
    this.#config = config;
  }

  async score(query: string, texts: readonly string[], signal: AbortSignal): Promise<number[]> {
    const { protocol, baseUrl, apiKey } = this.#config;
    const documents = texts.map((t) => t.slice(0, maxRerankTextChars));
    const url = `${baseUrl.replace(/\/+$/, '')}${protocol === 'tei' ? '/rerank' : '/v1/rerank'}`;
    const body =
      protocol === 'tei'
        ? { query, texts: documents, truncate: true, raw_scores: false }
        : { model: this.name, query, documents, top_n: documents.length };
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey && { authorization: `Bearer ${apiKey}` }) },
        body: JSON.stringify(body),
        redirect: 'error',
        signal,
      });
    } catch (error) {
      throw this.#unavailable(signal, error);
    }
    let text: string | undefined;
    try {
      text = await textUpTo(response, maxAnswerBytes);
    } catch (error) {
      throw this.#unavailable(signal, error);
    }
    if (text === undefined) throw this.#error('RERANKER_FAILED', `its answer is larger than ${maxAnswerBytes} bytes`);
    if (!response.ok) {
      const reason = `HTTP ${response.status}`;
      if (response.status === 429 || response.status === 503) throw this.#error('RERANKER_UNAVAILABLE', reason);
      throw this.#error('RERANKER_FAILED', reason);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw this.#error('RERANKER_FAILED', 'its answer is not JSON');
    }
    return this.#scores(parsed, texts.length);
  }

  /** One score per text, by index, from the protocol's answer. */
  #scores(parsed: unknown, count: number): number[] {
    const cohere = this.kind === 'cohere';
    const list = cohere ? (parsed as { results?: unknown } | null)?.results : parsed;
    const expected = cohere ? '{results: [{index, relevance_score}]}' : '[{index, score}]';
    if (!Array.isArray(list)) throw this.#error('RERANKER_FAILED', `its answer is not ${expected}`);
    const scores: (number | undefined)[] = new Array<number | undefined>(count).fill(undefined);
    for (const item of list as unknown[]) {
      const entry = item as { index?: unknown; score?: unknown; relevance_score?: unknown } | null;
      const index = entry?.index;
      const score = cohere ? entry?.relevance_score : entry?.score;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count)
        throw this.#error('RERANKER_FAILED', `its answer has an index that is not one of the ${count} texts sent`);
      if (typeof score !== 'number' || !Number.isFinite(score))
        throw this.#error('RERANKER_FAILED', `its answer has no finite score for text ${index} (expected ${expected})`);
      if (scores[index] !== undefined) throw this.#error('RERANKER_FAILED', `its answer scores text ${index} twice`);
      scores[index] = score;
    }
    const missing = scores.findIndex((s) => s === undefined);
    if (missing >= 0)
      throw this.#error('RERANKER_FAILED', `its answer scores ${list.length} of the ${count} texts sent`);
    return scores as number[];
  }

  #unavailable(signal: AbortSignal, error: unknown) {
    if (signal.aborted) throw signal.reason;
    // fetch's own message ("fetch failed") says nothing of the address; its cause, which does, is not passed on.
    return this.#error('RERANKER_UNAVAILABLE', `it could not be reached (${(error as Error).message})`);
  }

  #error(code: 'RERANKER_FAILED' | 'RERANKER_UNAVAILABLE', reason: string) {
    return createError(code, { model: this.name, reason }, { field: 'body.rerank.model' });
  }
}
