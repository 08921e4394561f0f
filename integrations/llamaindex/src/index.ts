export { GoDBVectorStore, type GoDBQueryParams, type GoDBVectorStoreArgs } from './godb-vector-store.js';
export { GoDBEmbedding, type GoDBEmbeddingArgs } from './godb-embedding.js';
export { toGoDBFilter, type FilterClause, type FilterGroup, type NestedMetadataFilters } from './filter.js';
