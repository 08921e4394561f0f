import {
  operations,
  playgroundFields,
  type CatalogueOperation,
  type Category,
  type PlaygroundField,
} from '@godb/contract';

export interface PlaygroundEndpoint {
  readonly op: CatalogueOperation;
  readonly fields: readonly PlaygroundField[];
}

/**
 * The categories the playground offers (api-spec §2): documents, indexes, embeddings and every search, and the
 * snapshots a tenant admin takes, downloads, uploads and restores.
 */
export const playgroundCategories: readonly { category: Category; title: string }[] = [
  { category: 'collections', title: 'Collections' },
  { category: 'documents', title: 'Documents' },
  { category: 'jobs', title: 'Jobs' },
  { category: 'indexes', title: 'Indexes' },
  { category: 'embeddings', title: 'Embeddings' },
  { category: 'search', title: 'Search' },
  { category: 'graph', title: 'Graph' },
  { category: 'snapshots', title: 'Snapshots' },
  { category: 'cluster', title: 'Cluster' },
];

/** Every playground endpoint, generated from the catalogue. */
export const playgroundEndpoints: readonly PlaygroundEndpoint[] = operations
  .filter((op) => playgroundCategories.some((c) => c.category === op.category))
  .map((op) => ({ op, fields: playgroundFields(op) }));
