import { createError } from '@godb/contract';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  wordCount,
  type EmbeddingModelInfo,
  type EmbeddingProvider,
  type ProviderOutput,
} from './embedding-provider.js';

/** A bring-your-own model folder under MODELS_DIR, run with transformers.js (remote loading disabled). */
export interface LocalOnnxModel {
  readonly name: string;
  readonly dimensions: number;
  readonly folder: string;
  readonly pooling: 'cls' | 'mean';
}

type Extractor = (
  texts: string[],
  options: { pooling: 'cls' | 'mean'; normalize: boolean },
) => Promise<{ data: Float32Array; dims: number[] }>;

/** Model folders are recognised by a Hugging Face `config.json` with a hidden size. */
export function discoverLocalModels(modelsDir: string): LocalOnnxModel[] {
  if (!existsSync(modelsDir)) return [];
  const models: LocalOnnxModel[] = [];
  for (const name of readdirSync(modelsDir)) {
    const folder = join(modelsDir, name);
    const configFile = join(folder, 'config.json');
    if (!existsSync(configFile)) continue;
    try {
      const config = JSON.parse(readFileSync(configFile, 'utf8')) as { hidden_size?: number; dim?: number };
      const dimensions = config.hidden_size ?? config.dim;
      if (!dimensions) continue;
      const poolingFile = join(folder, '1_Pooling', 'config.json');
      const pooling =
        existsSync(poolingFile) &&
        (JSON.parse(readFileSync(poolingFile, 'utf8')) as { pooling_mode_cls_token?: boolean }).pooling_mode_cls_token
          ? 'cls'
          : 'mean';
      models.push({ name, dimensions, folder, pooling });
    } catch {
      // An unreadable config is reported when the model is used, not at listing time.
    }
  }
  return models;
}

/** Bring-your-own model folders under MODELS_DIR, loaded lazily (one transformers.js pipeline per model). */
export class LocalOnnxProvider implements EmbeddingProvider {
  readonly #modelsDir: string;
  readonly #loaded = new Map<string, Promise<Extractor>>();

  constructor(modelsDir: string) {
    this.#modelsDir = modelsDir;
  }

  models(): EmbeddingModelInfo[] {
    return discoverLocalModels(this.#modelsDir).map((m) => ({
      name: m.name,
      provider: 'local-onnx',
      dimensions: m.dimensions,
      description: `Local ONNX model from ${m.folder}`,
    }));
  }

  async run(model: EmbeddingModelInfo, texts: string[], signal?: AbortSignal): Promise<ProviderOutput> {
    const local = discoverLocalModels(this.#modelsDir).find((m) => m.name === model.name);
    if (!local) throw createError('MODEL_LOAD_FAILED', { model: model.name, reason: 'its folder is gone' });
    const vectors = await this.embed(local, texts);
    signal?.throwIfAborted();
    return { vectors, tokenCounts: texts.map(wordCount) };
  }

  async embed(model: LocalOnnxModel, texts: readonly string[]): Promise<Float32Array[]> {
    let extractor = this.#loaded.get(model.name);
    if (!extractor) {
      extractor = this.#load(model);
      this.#loaded.set(model.name, extractor);
      extractor.catch(() => this.#loaded.delete(model.name));
    }
    const run = await extractor;
    const output = await run([...texts], { pooling: model.pooling, normalize: false });
    const dims = output.dims[output.dims.length - 1] ?? model.dimensions;
    return texts.map((_t, i) => output.data.slice(i * dims, (i + 1) * dims));
  }

  async #load(model: LocalOnnxModel): Promise<Extractor> {
    try {
      const transformers = await import('@huggingface/transformers');
      transformers.env.allowRemoteModels = false;
      transformers.env.allowLocalModels = true;
      transformers.env.localModelPath = `${this.#modelsDir.replace(/\/+$/, '')}/`;
      const pipe = await transformers.pipeline('feature-extraction', model.name, { local_files_only: true });
      return pipe as unknown as Extractor;
    } catch (error) {
      throw createError('MODEL_LOAD_FAILED', { model: model.name, reason: (error as Error).message });
    }
  }
}
