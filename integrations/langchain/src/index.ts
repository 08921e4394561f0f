export { GoDBVectorStore, type GoDBVectorStoreArgs } from './godb-vector-store.js';
export {
  toGoDBFilter,
  type FilterClause,
  type FilterGroup,
  type GoDBFilter,
  type GoDBVectorStoreFilter,
  type MetadataFilter,
  type MetadataOperators,
} from './filter.js';
