/** A cross-encoder: scores each text against the query, one score per text in the texts' order (higher: better). */
export interface Reranker {
  readonly name: string;
  /** Where it runs, for errors and listings: `local-onnx`, `tei` or `cohere`. */
  readonly kind: 'local-onnx' | 'tei' | 'cohere';
  score(query: string, texts: readonly string[], signal: AbortSignal): Promise<number[]>;
}
