export { operations, operationById, type Operation, type OperationId, type CatalogueOperation } from './catalogue.js';
export {
  defineOperation,
  commonErrors,
  tenantDataCategories,
  authErrors,
  type OperationSpec,
  type OperationExample,
  type HttpMethod,
  type Access,
  type Category,
  type FieldKind,
  type FieldHint,
} from './define-operation.js';
export {
  errorCatalogue,
  clientMessages,
  createError,
  formatMessage,
  echo,
  maxEchoLength,
  isGoDBError,
  GoDBError,
  grpcStatusCodes,
  type ErrorCode,
  type ErrorSpec,
  type GrpcStatusName,
} from './errors.js';
export {
  playgroundFields,
  requestBodyOf,
  type PlaygroundField,
  type FieldLocation,
  type RequestBody,
} from './playground-fields.js';
export { buildOpenApi, operationErrors } from './openapi.js';
export { emailPattern, emailProblem, emailRegExp, emailRuleMessage } from './email-rule.js';
export { clusterHandling, idempotencyKeyHeader, marksStale, staleHeader, type ClusterHandling } from './cluster.js';
export { consistencyHeader, minSeqHeader, readOptionHeaders, sequenceHeader } from './cluster-headers.js';
export { nothingRegistered } from './operations/register.js';
export { fixedAtCreation } from './fixed-at-creation.js';
export {
  sitePaths,
  isSitePath,
  documentationSlugs,
  apiPrefixes,
  isApiPath,
  type SitePathName,
  type DocumentationSlug,
} from './site-routes.js';
export { ErrorBody, SuccessMessage, inputLimits, DateInput, isoDatePattern } from './schemas/common.js';
export {
  roleNames,
  apiKeyIdPattern,
  type RoleName,
  type User,
  type Group,
  type Permission,
  type ApiKey,
} from './schemas/auth.js';
export {
  visibilities,
  aclRoles,
  type Visibility,
  type AclEntry,
  type AclChange,
  DocumentInput,
} from './schemas/document.js';
export { graphQueryTypes, centralityTypes, recommendationStrategies } from './schemas/graph.js';
export {
  textQueryTypes,
  similarityMethods,
  hybridFusions,
  hybridDefaults,
  smartModes,
  filterOperators,
  maxSearchLimit,
  maxFilterDepth,
} from './schemas/search.js';
export { quantizationMethods, bitWidths, specDefaultModel, type EmbeddingOptions } from './schemas/embedding.js';
export { mailTemplates } from './schemas/mail.js';
export { ClusterView, ClusterNode, ClusterShard, ShardMove } from './schemas/cluster.js';
export {
  maxPipelineDepth,
  maxPipelineStages,
  pipelineStageKinds,
  unsupportedStageKinds,
  pipelineFusions,
  decayFunctions,
  groupListModes,
  defaultRrfK,
  rerankCandidates,
} from './schemas/query.js';
export {
  vectorDistances,
  vectorStorages,
  collectionNamePattern,
  maxMultiVectors,
  type MultiVectorSettings,
  fieldIndexKinds,
  type FieldIndexKind,
  type FieldIndexDeclarations,
  type VectorDistance,
  type VectorStorage,
  type HnswSettings,
  type VectorSettings,
  type VectorSettingsInput,
  type Collection,
  type CreateCollectionRequest,
  type UpdateCollectionRequest,
} from './schemas/collection.js';
export {
  analysisLanguages,
  stopWordLists,
  analysisLimits,
  type AnalysisLanguage,
  type StopWordList,
  type AnalysisSettings,
} from './schemas/collection.js';
export { ConfigSchema } from './config-schema.js';
export { qdrantCompatibility, qdrantIgnoredSettings, type QdrantCompatibilityRow } from './qdrant-compatibility.js';
export {
  grpcServices,
  grpcMessages,
  grpcPackage,
  GrpcSearchExtras,
  GrpcNarrowing,
  renderProto,
  type GrpcService,
  type GrpcMessage,
  type GrpcMethod,
  type GrpcField,
} from './grpc.js';
