export { GoDBVectorStore, type GoDBQueryParams, type GoDBVectorStoreArgs } from './godb-vector-store.js';
export { toGoDBFilter, type FilterClause, type FilterGroup, type NestedMetadataFilters } from './filter.js';
