import type { UseCaseOf } from '../context.js';
import type { EmbeddingDeps } from './deps.js';
import { embedText } from './embed-text.js';

export const createEmbeddingUseCase =
  (deps: EmbeddingDeps): UseCaseOf<'create-embedding'> =>
  async ({ body }, ctx) =>
    (await embedText(deps, body, ctx.signal)).response;
