import { operationById } from '@godb/contract';
import { useQuery } from '@tanstack/react-query';
import { callOperation } from '../../../lib/api-client';

/** GET /api/v1/embeddings/models: the models the server embeds with, and the one it uses by default. */
export function listEmbeddingModels(token: string): Promise<{ models: string[]; default_model?: string }> {
  return callOperation(operationById('list-embedding-models'), { token });
}

/** The server's default model, which the forms start with; null until known (or when the call failed). */
export function useDefaultModel(token: string): string | null {
  const { data } = useQuery({ queryKey: ['embedding-models', token], queryFn: () => listEmbeddingModels(token) });
  return data?.default_model ?? null;
}
