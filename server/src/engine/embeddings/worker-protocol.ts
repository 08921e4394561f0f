/** Messages from the embedding worker pool to its workers: a batch to embed, or the order to stop. */
export type WorkerRequest =
  | { readonly id: number; readonly texts: readonly string[] }
  /** Finish the batch in progress, release the model, exit. (Terminating a thread inside a native call aborts the process.) */
  | { readonly close: true };

export type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'load-error'; readonly message: string }
  | { readonly type: 'result'; readonly id: number; readonly vectors: Float32Array; readonly tokenCounts: number[] }
  | { readonly type: 'error'; readonly id: number; readonly message: string };
