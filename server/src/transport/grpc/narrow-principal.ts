import { createError, type RoleName } from '@godb/contract';
import type { Principal } from '../../service/context.js';

const rank: Record<RoleName, number> = { user: 0, admin: 1, superadmin: 2 };

/**
 * The roles and groups of a gRPC request can only narrow what the token allows: groups are intersected with the
 * token's, and the role becomes the highest requested role the token holds. Asking only for roles the token
 * lacks is refused.
 */
export function narrowPrincipal(
  principal: Principal,
  roles: readonly string[] = [],
  groups: readonly string[] = [],
): Principal {
  let role = principal.role;
  if (roles.length > 0) {
    const allowed = roles.filter((r): r is RoleName => r in rank && rank[r as RoleName] <= rank[principal.role]);
    if (allowed.length === 0)
      throw createError('FORBIDDEN', {
        reason: `the requested roles (${roles.join(', ')}) exceed the token’s role ${principal.role}`,
      });
    role = allowed.reduce((best, r) => (rank[r] > rank[best] ? r : best));
  }
  const narrowedGroups = groups.length > 0 ? principal.groups.filter((g) => groups.includes(g)) : principal.groups;
  return { ...principal, role, groups: narrowedGroups };
}
