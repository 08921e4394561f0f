import { randomUUID } from 'node:crypto';
import type { User } from '@godb/contract';
import type { NewUser } from '../../engine/directory/directory.js';
import type { AuthDeps } from './deps.js';

/**
 * Creates a user (with `register`, its new tenant too) through the log, with its id decided here so that every node
 * of a cluster stores the same user.
 *
 * @example const user = await addUser(deps, { tenantId, email, passwordHash, role: 'admin' }, true);
 */
export async function addUser(deps: AuthDeps, user: NewUser, register: boolean): Promise<User> {
  return (await deps.log.submit({ kind: 'create-user', register, user: { ...user, id: randomUUID() } })) as User;
}
