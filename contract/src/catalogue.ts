/**
 * The API catalogue: every operation GoDB serves, in the order the reference and the playground list them.
 */
import type { OperationSpec } from './define-operation.js';
import { register } from './operations/register.js';
import { login } from './operations/login.js';
import { assignRole } from './operations/assign-role.js';
import { createGroup } from './operations/create-group.js';
import { addGroupUser } from './operations/add-group-user.js';
import { removeGroupUser } from './operations/remove-group-user.js';
import { createPermission } from './operations/create-permission.js';
import { assignGroupPermission } from './operations/assign-group-permission.js';
import { createAdminUser } from './operations/create-admin-user.js';
import { createUser } from './operations/create-user.js';
import { getUser } from './operations/get-user.js';
import { listUsers } from './operations/list-users.js';
import { updateUser } from './operations/update-user.js';
import { deleteUser } from './operations/delete-user.js';
import { createCollection } from './operations/create-collection.js';
import { listCollections } from './operations/list-collections.js';
import { getCollection } from './operations/get-collection.js';
import { updateCollection } from './operations/update-collection.js';
import { deleteCollection } from './operations/delete-collection.js';
import { createApiKey } from './operations/create-api-key.js';
import { listApiKeys } from './operations/list-api-keys.js';
import { revokeApiKey } from './operations/revoke-api-key.js';
import { addDocument } from './operations/add-document.js';
import { batchAddDocuments } from './operations/batch-add-documents.js';
import { getDocument } from './operations/get-document.js';
import { countDocuments } from './operations/count-documents.js';
import { updateDocument } from './operations/update-document.js';
import { scrollDocuments } from './operations/scroll-documents.js';
import { deleteDocuments } from './operations/delete-documents.js';
import { downloadDocumentFile } from './operations/download-document-file.js';
import { updateEngagement } from './operations/update-engagement.js';
import { recordEngagement } from './operations/record-engagement.js';
import { setVisibility } from './operations/set-visibility.js';
import { updateAcl } from './operations/update-acl.js';
import { deleteDocument } from './operations/delete-document.js';
import { documentStats } from './operations/document-stats.js';
import { simpleSearch } from './operations/simple-search.js';
import { refreshIndexes } from './operations/refresh-indexes.js';
import { reclusterIndexes } from './operations/recluster-indexes.js';
import { getJob } from './operations/get-job.js';
import { importDocuments } from './operations/import-documents.js';
import { createSnapshot } from './operations/create-snapshot.js';
import { listSnapshots } from './operations/list-snapshots.js';
import { downloadSnapshot } from './operations/download-snapshot.js';
import { deleteSnapshot } from './operations/delete-snapshot.js';
import { restoreSnapshot } from './operations/restore-snapshot.js';
import { uploadSnapshot } from './operations/upload-snapshot.js';
import { listEmbeddingModels } from './operations/list-embedding-models.js';
import { createEmbedding } from './operations/create-embedding.js';
import { createQuantizedEmbedding } from './operations/create-quantized-embedding.js';
import { searchAutocomplete } from './operations/search-autocomplete.js';
import { searchText } from './operations/search-text.js';
import { searchVector } from './operations/search-vector.js';
import { searchHybrid } from './operations/search-hybrid.js';
import { searchQuery } from './operations/search-query.js';
import { searchGeo } from './operations/search-geo.js';
import { searchFaceted } from './operations/search-faceted.js';
import { searchFuzzy } from './operations/search-fuzzy.js';
import { searchSmart } from './operations/search-smart.js';
import { searchMultiTable } from './operations/search-multi-table.js';
import { searchRecommendations } from './operations/search-recommendations.js';
import { searchGraph } from './operations/search-graph.js';
import { graphQuery } from './operations/graph-query.js';
import { sendEmail } from './operations/send-email.js';
import { sendMail } from './operations/send-mail.js';
import { downloadRelease } from './operations/download-release.js';
import { getCluster } from './operations/get-cluster.js';

const catalogue = [
  register,
  login,
  assignRole,
  createGroup,
  addGroupUser,
  removeGroupUser,
  createPermission,
  assignGroupPermission,
  createAdminUser,
  createUser,
  getUser,
  listUsers,
  updateUser,
  deleteUser,
  createCollection,
  listCollections,
  getCollection,
  updateCollection,
  deleteCollection,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  addDocument,
  batchAddDocuments,
  importDocuments,
  getDocument,
  updateDocument,
  countDocuments,
  scrollDocuments,
  deleteDocuments,
  downloadDocumentFile,
  updateEngagement,
  recordEngagement,
  setVisibility,
  updateAcl,
  deleteDocument,
  documentStats,
  simpleSearch,
  refreshIndexes,
  reclusterIndexes,
  getJob,
  createSnapshot,
  listSnapshots,
  downloadSnapshot,
  deleteSnapshot,
  restoreSnapshot,
  uploadSnapshot,
  listEmbeddingModels,
  createEmbedding,
  createQuantizedEmbedding,
  searchAutocomplete,
  searchText,
  searchVector,
  searchHybrid,
  searchQuery,
  searchGeo,
  searchFaceted,
  searchFuzzy,
  searchSmart,
  searchMultiTable,
  searchRecommendations,
  searchGraph,
  graphQuery,
  sendEmail,
  sendMail,
  downloadRelease,
  getCluster,
] as const;

/** The precise type of each operation (its schemas as TypeBox types), for typed use cases. */
export type Operation = (typeof catalogue)[number];
export type OperationId = Operation['id'];
/** An operation seen through the general shape every consumer can iterate over. */
export type CatalogueOperation = OperationSpec & { readonly id: OperationId };

export const operations: readonly CatalogueOperation[] = catalogue;

/** Finds an operation by id; throws on an unknown id, which is a programming error. */
export function operationById(id: OperationId): CatalogueOperation {
  const found = operations.find((o) => o.id === id);
  if (!found) throw new TypeError(`Unknown operation ${id}`);
  return found;
}
