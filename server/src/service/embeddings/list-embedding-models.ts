import type { UseCaseOf } from '../context.js';
import type { EmbeddingDeps } from './deps.js';

export const listEmbeddingModelsUseCase =
  (deps: EmbeddingDeps): UseCaseOf<'list-embedding-models'> =>
  async () => {
    const { models, defaultModel, notes } = deps.embedder.listModels();
    return {
      models: models.map((m) => m.name),
      default_model: defaultModel,
      details: models.map((m) => ({ ...m, default: m.name === defaultModel })),
      notes,
    };
  };
