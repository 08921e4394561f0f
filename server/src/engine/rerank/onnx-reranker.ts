import { createError } from '@godb/contract';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as Ort from 'onnxruntime-node';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { maxRerankTextChars } from './http-reranker.js';
import type { Reranker } from './reranker.js';

/** Where a cross-encoder folder may keep its graph, in the order looked for (Hugging Face exports use onnx/). */
const graphFiles = ['model.onnx', join('onnx', 'model.onnx')];
/** Pairs run through the graph at once: bounds the padded batch's memory for a real model. */
const batchSize = 16;

/** The cross-encoder folders of RERANK_MODELS_DIR: those holding a tokenizer.json, by folder name. */
export function discoverLocalRerankers(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'tokenizer.json')))
    .sort();
}

interface Loaded {
  readonly tokenizer: PairTokenizer;
  readonly session: InferenceSession;
  readonly ort: typeof Ort;
  readonly maxLength: number;
  readonly padId: number;
  readonly unkId: number;
}

interface PairTokenizer {
  encode(
    text: string,
    options: { text_pair: string; return_token_type_ids: true },
  ): { ids: number[]; attention_mask: number[]; token_type_ids: number[] };
}

/**
 * A bring-your-own cross-encoder (RERANK_MODELS_DIR/<name>/: tokenizer.json, tokenizer_config.json, model.onnx),
 * run with onnxruntime-node on this thread's native pool. Each (query, text) pair is tokenized together, as the
 * model was trained, truncated to its model_max_length (default 512); the score is sigmoid(logit) for a one-label
 * head — what sentence-transformers' CrossEncoder and TEI answer — and the last label's probability otherwise.
 */
export class OnnxReranker implements Reranker {
  readonly name: string;
  readonly kind = 'local-onnx' as const;
  readonly #folder: string;
  #loaded: Promise<Loaded> | undefined;

  constructor(name: string, folder: string) {
    this.name = name;
    this.#folder = folder;
  }

  async score(query: string, texts: readonly string[], signal: AbortSignal): Promise<number[]> {
    const loaded = await this.#load();
    const scores: number[] = [];
    for (let i = 0; i < texts.length; i += batchSize) {
      signal.throwIfAborted();
      scores.push(...(await this.#batch(loaded, query, texts.slice(i, i + batchSize))));
    }
    return scores;
  }

  async #batch(loaded: Loaded, query: string, texts: readonly string[]): Promise<number[]> {
    const { tokenizer, session, ort, maxLength, padId, unkId } = loaded;
    const pairs = texts.map((text) => {
      const e = tokenizer.encode(query, { text_pair: text.slice(0, maxRerankTextChars), return_token_type_ids: true });
      const cut = (xs: number[]) => (xs.length <= maxLength ? xs : [...xs.slice(0, maxLength - 1), xs[xs.length - 1]!]);
      // A word-level vocabulary gives no id for an unknown word: it is the unknown token.
      return { ids: cut(e.ids.map((id) => id ?? unkId)), mask: cut(e.attention_mask), types: cut(e.token_type_ids) };
    });
    const width = Math.max(1, ...pairs.map((p) => p.ids.length));
    const tensor = (pick: (p: (typeof pairs)[number]) => number[], pad: number) => {
      const data = new BigInt64Array(pairs.length * width).fill(BigInt(pad));
      pairs.forEach((p, row) => pick(p).forEach((v, col) => (data[row * width + col] = BigInt(v))));
      return new ort.Tensor('int64', data, [pairs.length, width]);
    };
    const available: Record<string, () => Tensor> = {
      input_ids: () => tensor((p) => p.ids, padId),
      attention_mask: () => tensor((p) => p.mask, 0),
      token_type_ids: () => tensor((p) => p.types, 0),
    };
    const feeds: Record<string, Tensor> = {};
    for (const input of session.inputNames) {
      const make = available[input];
      if (!make)
        throw this.#failed(`its graph wants an input "${input}" (expected input_ids, attention_mask, token_type_ids)`);
      feeds[input] = make();
    }
    let output: Tensor | undefined;
    try {
      const outputs = await session.run(feeds);
      output = outputs['logits'] ?? outputs[session.outputNames[0]!];
    } catch (error) {
      throw this.#failed(`its graph failed to run (${(error as Error).message})`);
    }
    const data = output?.data;
    if (!output || !(data instanceof Float32Array)) throw this.#failed('its graph gave no float logits');
    const labels = data.length / pairs.length;
    if (!Number.isInteger(labels) || labels < 1)
      throw this.#failed(`its logits have shape [${output.dims.join(', ')}]`);
    return pairs.map((_p, row) => {
      const logits = Array.from(data.subarray(row * labels, (row + 1) * labels));
      if (labels === 1) return 1 / (1 + Math.exp(-logits[0]!));
      const top = Math.max(...logits);
      const exps = logits.map((l) => Math.exp(l - top));
      return exps[labels - 1]! / exps.reduce((a, b) => a + b, 0);
    });
  }

  #load(): Promise<Loaded> {
    if (!this.#loaded) {
      this.#loaded = this.#open();
      this.#loaded.catch(() => (this.#loaded = undefined));
    }
    return this.#loaded;
  }

  async #open(): Promise<Loaded> {
    const graph = graphFiles.map((f) => join(this.#folder, f)).find((f) => existsSync(f));
    if (!graph) throw this.#unavailable(`RERANK_MODELS_DIR/${this.name}/ holds no model.onnx nor onnx/model.onnx`);
    try {
      const [{ Tokenizer }, ort] = await Promise.all([import('@huggingface/tokenizers'), import('onnxruntime-node')]);
      const json = JSON.parse(readFileSync(join(this.#folder, 'tokenizer.json'), 'utf8')) as object;
      const configFile = join(this.#folder, 'tokenizer_config.json');
      const config = existsSync(configFile)
        ? (JSON.parse(readFileSync(configFile, 'utf8')) as {
            model_max_length?: number;
            pad_token?: string;
            unk_token?: string;
          })
        : {};
      const tokenizer = new Tokenizer(json, config) as unknown as PairTokenizer & {
        token_to_id(token: string): number | undefined;
      };
      const session = await ort.InferenceSession.create(graph, {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        logSeverityLevel: 3,
      });
      const maxLength = Math.min(config.model_max_length ?? 512, 8192);
      const padId = (config.pad_token && tokenizer.token_to_id(config.pad_token)) || 0;
      const unkId = tokenizer.token_to_id(config.unk_token ?? '[UNK]') ?? 0;
      return { tokenizer, session, ort, maxLength, padId, unkId };
    } catch (error) {
      throw this.#unavailable(`RERANK_MODELS_DIR/${this.name}/ could not be loaded (${(error as Error).message})`);
    }
  }

  #failed(reason: string) {
    return createError('RERANKER_FAILED', { model: this.name, reason }, { field: 'body.rerank.model' });
  }

  #unavailable(reason: string) {
    return createError('RERANKER_UNAVAILABLE', { model: this.name, reason }, { field: 'body.rerank.model' });
  }
}
