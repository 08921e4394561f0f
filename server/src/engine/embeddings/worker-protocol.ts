/** Messages between the embedding worker pool and its workers. */
export interface WorkerRequest {
  readonly id: number;
  readonly texts: readonly string[];
}

export type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'load-error'; readonly message: string }
  | { readonly type: 'result'; readonly id: number; readonly vectors: Float32Array; readonly tokenCounts: number[] }
  | { readonly type: 'error'; readonly id: number; readonly message: string };
