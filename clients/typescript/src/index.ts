export { GoDBClient, type ClientOptions } from './client.js';
export { GoDBError, type GoDBErrorCode, type ClientErrorCode } from './errors.js';
export { operationTable } from './operations.generated.js';
export { defaultRetry } from './retry.js';
export type {
  ImportDocument,
  ImportLineResult,
  ImportOptions,
  ImportProgress,
  ImportSource,
  ImportSummary,
} from './ndjson.js';
export type { CallOptions, GroupMethods, GroupName, Input, MethodName, Output, RetryOptions } from './types.js';
