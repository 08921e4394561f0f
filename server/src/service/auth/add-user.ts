import { randomUUID } from 'node:crypto';
import type { User } from '@godb/contract';
import type { NewUser } from '../../engine/directory/directory.js';
import { atDecidedTime } from '../write-time.js';
import type { AuthDeps } from './deps.js';

/**
 * Creates a user (with `register`, its new tenant too) in the embedded store, or in cluster mode through the
 * replicated log, with its id decided here so that every node stores the same user.
 *
 * @example const user = await addUser(deps, { tenantId, email, passwordHash, role: 'admin' }, true);
 */
export async function addUser(deps: AuthDeps, user: NewUser, register: boolean): Promise<User> {
  if (!deps.log)
    return atDecidedTime(deps.writeClock, () =>
      register ? deps.directory.registerTenant(user) : deps.directory.createUser(user),
    );
  return (await deps.log.submit({ kind: 'create-user', register, user: { ...user, id: randomUUID() } })) as User;
}
