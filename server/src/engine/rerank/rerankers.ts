import { createError } from '@godb/contract';
import { statSync } from 'node:fs';
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
  /** The folder's listing and the folder's mtime when it was read. */
  #listing: { readonly mtimeMs: number; readonly names: readonly string[] } | undefined;

  constructor(options: RerankersOptions) {
    this.timeoutMs = options.timeoutMs;
    this.#dir = options.modelsDir;
    this.#http = new Map((options.http ?? []).map((c) => [c.name, new HttpReranker(c)]));
  }

  names(): string[] {
    const local = this.#localNames(false);
    return [...this.#http.keys(), ...local.filter((n) => !this.#http.has(n))];
  }

  resolve(name: string): Reranker {
    const http = this.#http.get(name);
    if (http) return http;
    // A name the cached listing lacks is looked up afresh: a folder whose tokenizer.json arrived after the folder
    // itself does not change RERANK_MODELS_DIR's mtime.
    if (this.#dir && (this.#localNames(false).includes(name) || this.#localNames(true).includes(name))) {
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

  /**
   * The folders of RERANK_MODELS_DIR holding a tokenizer.json, listed again only when the folder's mtime changed (a
   * folder added, removed or renamed) or `fresh` is asked: one stat a request instead of a listing. A folder gone
   * drops its loaded model.
   */
  #localNames(fresh: boolean): readonly string[] {
    if (!this.#dir) return [];
    let mtimeMs: number;
    try {
      mtimeMs = statSync(this.#dir).mtimeMs;
    } catch {
      mtimeMs = Number.NaN;
    }
    if (!fresh && this.#listing?.mtimeMs === mtimeMs) return this.#listing.names;
    const names = Number.isNaN(mtimeMs) ? [] : discoverLocalRerankers(this.#dir);
    this.#listing = { mtimeMs, names };
    for (const name of this.#local.keys()) if (!names.includes(name)) this.#local.delete(name);
    return names;
  }
}
