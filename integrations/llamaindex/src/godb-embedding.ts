import { GoDBClient, type ClientOptions } from '@godb/client';
import { BaseEmbedding } from '@llamaindex/core/embeddings';

export interface GoDBEmbeddingArgs {
  /** A client, or the options to make one (`{ url, apiKey }`). */
  readonly client: GoDBClient | ClientOptions;
  /** One of the server's models (GET /api/v1/embeddings/models); the server's default when not given. */
  readonly model?: string;
}

/**
 * A LlamaIndex embedding model answered by GoDB's own models (`POST /api/v1/embeddings`), so an index needs no other
 * embedding provider.
 *
 * @example
 *   Settings.embedModel = new GoDBEmbedding({ client: { url, apiKey }, model: 'glove-100' });
 */
export class GoDBEmbedding extends BaseEmbedding {
  readonly model: string | undefined;
  readonly #client: GoDBClient;

  public constructor(args: GoDBEmbeddingArgs) {
    super();
    this.#client = args.client instanceof GoDBClient ? args.client : new GoDBClient(args.client);
    this.model = args.model;
  }

  async getTextEmbedding(text: string): Promise<number[]> {
    const answer = await this.#client.embeddings.create({
      text,
      ...(this.model !== undefined && { model_name: this.model }),
    });
    return answer.content_embedding;
  }
}
