import { createError, roleNames, type Access, type RoleName } from '@godb/contract';
import type { Principal } from '../context.js';

/** user < admin < superadmin. */
export const roleRank: Readonly<Record<RoleName, number>> = { user: 0, admin: 1, superadmin: 2 };
const rank = roleRank;
const required: Record<Exclude<Access, 'public'>, RoleName> = {
  user: 'user',
  admin: 'admin',
  superadmin: 'superadmin',
};

/** Parses a role name given by a client; 400 with the allowed values otherwise. */
export function parseRole(value: string, field = 'body.role'): RoleName {
  if ((roleNames as readonly string[]).includes(value)) return value as RoleName;
  throw createError('INVALID_ROLE', { role: value, allowed: roleNames.join(', ') }, { field });
}

/** Throws FORBIDDEN unless the principal's role reaches the access level of the operation. */
export function authorize(access: Access, principal: Principal | null): void {
  if (access === 'public') return;
  if (!principal) throw createError('UNAUTHORIZED', { reason: 'missing bearer token' });
  const needed = required[access];
  if (rank[principal.role] < rank[needed]) {
    throw createError('FORBIDDEN', { reason: `this operation needs the ${needed} role, you have ${principal.role}` });
  }
}

/** Admins may grant user and admin; only the super admin may grant superadmin. */
export function assertMayGrant(granter: Principal, role: RoleName): void {
  if (rank[role] > rank[granter.role]) {
    throw createError('FORBIDDEN', { reason: `only a super admin can grant the ${role} role` });
  }
}
