import { createError } from '@godb/contract';
import { join } from 'node:path';
import { HttpReranker, type HttpRerankerConfig } from './http-reranker.js';
import { discoverLocalRerankers, OnnxReranker } from './onnx-reranker.js';
import type { Reranker } from './reranker.js';

export interface RerankersOptions {
  /** RERANK_MODELS_DIR: bring-your-own cross-encoder folders, looked up at each request (added without restart). */
  readonly modelsDir?: string | undefined;
  /** RERANK_MODELS: the HTTP rerankers. */
  readonly http?: readonly HttpRerankerConfig[];
  /** Time one rerank call may take, in ms. */
  readonly timeoutMs: number;
}

/**
 * The rerankers a server configures, by name: HTTP ones (RERANK_MODELS) first, then the folders of
 * RERANK_MODELS_DIR. An unknown name is a 400 RERANK_MODEL_NOT_AVAILABLE naming body.rerank.model and listing them.
 */
export class Rerankers {
  readonly timeoutMs: number;
  readonly #dir: string | undefined;
  readonly #http: Map<string, HttpReranker>;
  readonly #local = new Map<string, OnnxReranker>();

  constructor(options: RerankersOptions) {
    this.timeoutMs = options.timeoutMs;
    this.#dir = options.modelsDir;
    this.#http = new Map((options.http ?? []).map((c) => [c.name, new HttpReranker(c)]));
  }

  names(): string[] {
    const local = this.#dir ? discoverLocalRerankers(this.#dir) : [];
    return [...this.#http.keys(), ...local.filter((n) => !this.#http.has(n))];
  }

  resolve(name: string): Reranker {
    const http = this.#http.get(name);
    if (http) return http;
    if (this.#dir && discoverLocalRerankers(this.#dir).includes(name)) {
      let local = this.#local.get(name);
      if (!local) {
        local = new OnnxReranker(name, join(this.#dir, name));
        this.#local.set(name, local);
      }
      return local;
    }
    throw createError(
      'RERANK_MODEL_NOT_AVAILABLE',
      { model: name, available: this.names().join(', ') || '(none)' },
      { field: 'body.rerank.model' },
    );
  }
}
