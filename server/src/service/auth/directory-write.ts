import type { DirectoryWrites } from '../../engine/operations/operation.js';
import type { AuthDeps } from './deps.js';

/**
 * Submits one of the directory's writes to the log, so that every node makes the same change (ids, such as a new
 * group's, are decided by the caller and passed in).
 *
 * @example await directoryWrite(deps, 'updateUser', tenantId, userId, { role: 'user' });
 */
export async function directoryWrite<M extends keyof DirectoryWrites>(
  deps: AuthDeps,
  method: M,
  ...args: Parameters<DirectoryWrites[M]>
): Promise<ReturnType<DirectoryWrites[M]>> {
  type Result = ReturnType<DirectoryWrites[M]>;
  return (await deps.log.submit({ kind: 'directory', method, args } as never)) as Result;
}
