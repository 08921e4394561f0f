import { randomUUID } from 'node:crypto';
import { createError, type Group, type Permission, type RoleName, type User } from '@godb/contract';
import { unixSeconds, type Clock } from '../clock.js';
import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';

interface UserRow {
  id: string;
  tenant_id: string;
  email: string;
  password_hash: string;
  role: RoleName;
  created_at: number;
  updated_at: number;
}

/** A user with the hash of their password, for the login path only. */
export interface UserWithSecret extends User {
  readonly passwordHash: string;
}

export interface NewUser {
  readonly tenantId: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly role: RoleName;
  /** The user's id when it is decided before the write (cluster mode: by the node that took it); else a new one. */
  readonly id?: string;
}

export interface UserChanges {
  readonly email?: string;
  readonly role?: RoleName;
  readonly groups?: readonly string[];
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * Tenants, users, groups and permissions. Every read and write of a tenant's objects takes the tenant id, so
 * nothing of one tenant can be reached from another: an object of another tenant is simply not found.
 */
export class Directory {
  readonly #db: Db;
  /** The statements every authenticated request runs (the caller and its groups), compiled once. */
  readonly #sql: StatementCache;
  readonly #clock: Clock;

  constructor(db: Db, clock: Clock) {
    this.#db = db;
    this.#sql = new StatementCache(db);
    this.#clock = clock;
  }

  tenantExists(tenantId: string): boolean {
    return this.#db.prepare('SELECT 1 FROM tenants WHERE id = ?').get(tenantId) !== undefined;
  }

  /** Creates the tenant and its first user in one transaction. */
  registerTenant(user: NewUser): User {
    return this.#db.transaction(() => {
      if (this.tenantExists(user.tenantId)) throw createError('TENANT_EXISTS', { tenant_id: user.tenantId });
      this.#insertTenant(user.tenantId);
      return this.#insertUser(user);
    })();
  }

  /** Creates a user, creating the tenant too when it does not exist yet (super admin paths). */
  createUser(user: NewUser): User {
    return this.#db.transaction(() => {
      if (!this.tenantExists(user.tenantId)) this.#insertTenant(user.tenantId);
      return this.#insertUser(user);
    })();
  }

  #insertTenant(tenantId: string): void {
    this.#db.prepare('INSERT INTO tenants (id, created_at) VALUES (?, ?)').run(tenantId, unixSeconds(this.#clock));
  }

  #insertUser(user: NewUser): User {
    const now = unixSeconds(this.#clock);
    const id = user.id ?? randomUUID();
    try {
      this.#db
        .prepare(
          'INSERT INTO users (id, tenant_id, email, password_hash, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(id, user.tenantId, user.email, user.passwordHash, user.role, now, now);
    } catch (error) {
      if (isUniqueViolation(error)) throw createError('EMAIL_EXISTS', { email: user.email });
      throw error;
    }
    return {
      id,
      tenant_id: user.tenantId,
      email: user.email,
      role: user.role,
      groups: [],
      created_at: now,
      updated_at: now,
    };
  }

  findUserByEmail(email: string): UserWithSecret | undefined {
    const row = this.#db.prepare('SELECT * FROM users WHERE email = ?').get(email) as UserRow | undefined;
    return row && { ...this.#toUser(row), passwordHash: row.password_hash };
  }

  /** A user of the given tenant, or undefined (users of other tenants are not found). */
  getUser(tenantId: string, userId: string): User | undefined {
    const row = this.#sql.get('SELECT * FROM users WHERE id = ? AND tenant_id = ?').get(userId, tenantId) as
      UserRow | undefined;
    return row && this.#toUser(row);
  }

  requireUser(tenantId: string, userId: string): User {
    const user = this.getUser(tenantId, userId);
    if (!user) throw createError('NOT_FOUND', { resource: 'User', id: userId });
    return user;
  }

  listUsers(tenantId: string, offset: number, limit: number): { users: User[]; total: number } {
    const rows = this.#db
      .prepare('SELECT * FROM users WHERE tenant_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?')
      .all(tenantId, limit, offset) as UserRow[];
    const { total } = this.#db.prepare('SELECT count(*) AS total FROM users WHERE tenant_id = ?').get(tenantId) as {
      total: number;
    };
    return { users: rows.map((r) => this.#toUser(r)), total };
  }

  updateUser(tenantId: string, userId: string, changes: UserChanges): User {
    return this.#db.transaction(() => {
      const user = this.requireUser(tenantId, userId);
      if (changes.role !== undefined && changes.role !== user.role) {
        this.#assertNotLastAdmin(tenantId, user);
      }
      if (changes.groups) {
        for (const groupId of changes.groups) this.requireGroup(tenantId, groupId);
        this.#db.prepare('DELETE FROM group_members WHERE user_id = ?').run(userId);
        const insert = this.#db.prepare('INSERT OR IGNORE INTO group_members (group_id, user_id) VALUES (?, ?)');
        for (const groupId of changes.groups) insert.run(groupId, userId);
      }
      try {
        this.#db
          .prepare('UPDATE users SET email = ?, role = ?, updated_at = ? WHERE id = ?')
          .run(changes.email ?? user.email, changes.role ?? user.role, unixSeconds(this.#clock), userId);
      } catch (error) {
        if (isUniqueViolation(error)) throw createError('EMAIL_EXISTS', { email: changes.email ?? '' });
        throw error;
      }
      return this.requireUser(tenantId, userId);
    })();
  }

  deleteUser(tenantId: string, userId: string): void {
    this.#db.transaction(() => {
      const user = this.requireUser(tenantId, userId);
      this.#assertNotLastAdmin(tenantId, user);
      this.#db.prepare('DELETE FROM users WHERE id = ?').run(userId);
    })();
  }

  /** Refuses to demote or delete the only admin of a tenant, which would leave it unmanageable. */
  #assertNotLastAdmin(tenantId: string, user: User): void {
    if (user.role !== 'admin') return;
    const { admins } = this.#db
      .prepare("SELECT count(*) AS admins FROM users WHERE tenant_id = ? AND role = 'admin'")
      .get(tenantId) as { admins: number };
    if (admins <= 1) throw createError('LAST_ADMIN', { tenant_id: tenantId });
  }

  /** Sets a user's password hash (used to keep the bootstrapped super admin in line with its configuration). */
  setPasswordHash(userId: string, passwordHash: string, role: RoleName): void {
    this.#db
      .prepare('UPDATE users SET password_hash = ?, role = ?, updated_at = ? WHERE id = ?')
      .run(passwordHash, role, unixSeconds(this.#clock), userId);
  }

  /** Creates a group; `id` is given when it is decided before the write (cluster mode). */
  createGroup(tenantId: string, name: string, description: string, id: string = randomUUID()): Group {
    const group: Group = {
      id,
      tenant_id: tenantId,
      name,
      description,
      created_at: unixSeconds(this.#clock),
    };
    try {
      this.#db
        .prepare('INSERT INTO groups (id, tenant_id, name, description, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(group.id, tenantId, name, description, group.created_at);
    } catch (error) {
      if (isUniqueViolation(error)) throw createError('GROUP_EXISTS', { name });
      throw error;
    }
    return group;
  }

  requireGroup(tenantId: string, groupId: string): Group {
    const group = this.#db.prepare('SELECT * FROM groups WHERE id = ? AND tenant_id = ?').get(groupId, tenantId) as
      Group | undefined;
    if (!group) throw createError('NOT_FOUND', { resource: 'Group', id: groupId });
    return group;
  }

  addMember(tenantId: string, groupId: string, userId: string): void {
    this.requireGroup(tenantId, groupId);
    this.requireUser(tenantId, userId);
    this.#db.prepare('INSERT OR IGNORE INTO group_members (group_id, user_id) VALUES (?, ?)').run(groupId, userId);
  }

  removeMember(tenantId: string, groupId: string, userId: string): void {
    this.requireGroup(tenantId, groupId);
    this.requireUser(tenantId, userId);
    const { changes } = this.#db
      .prepare('DELETE FROM group_members WHERE group_id = ? AND user_id = ?')
      .run(groupId, userId);
    if (changes === 0)
      throw createError('NOT_FOUND', { resource: 'Membership of user', id: `${userId} in group ${groupId}` });
  }

  /** Creates a permission; `id` is given when it is decided before the write (cluster mode). */
  createPermission(resource: string, action: string, description: string, id: string = randomUUID()): Permission {
    const permission: Permission = { id, resource, action, description };
    try {
      this.#db
        .prepare('INSERT INTO permissions (id, resource, action, description) VALUES (?, ?, ?, ?)')
        .run(permission.id, resource, action, description);
    } catch (error) {
      if (isUniqueViolation(error)) throw createError('PERMISSION_EXISTS', { resource, action });
      throw error;
    }
    return permission;
  }

  grantPermission(tenantId: string, groupId: string, permissionId: string): void {
    this.requireGroup(tenantId, groupId);
    if (!this.#db.prepare('SELECT 1 FROM permissions WHERE id = ?').get(permissionId)) {
      throw createError('NOT_FOUND', { resource: 'Permission', id: permissionId });
    }
    this.#db
      .prepare('INSERT OR IGNORE INTO group_permissions (group_id, permission_id) VALUES (?, ?)')
      .run(groupId, permissionId);
  }

  /** The permissions a user holds through their groups, as `resource:action`. */
  permissionsOf(userId: string): string[] {
    const rows = this.#db
      .prepare(
        `SELECT DISTINCT p.resource, p.action FROM permissions p
         JOIN group_permissions gp ON gp.permission_id = p.id
         JOIN group_members gm ON gm.group_id = gp.group_id
         WHERE gm.user_id = ? ORDER BY p.resource, p.action`,
      )
      .all(userId) as { resource: string; action: string }[];
    return rows.map((r) => `${r.resource}:${r.action}`);
  }

  #toUser(row: UserRow): User {
    const groups = this.#sql
      .get('SELECT group_id FROM group_members WHERE user_id = ? ORDER BY group_id')
      .pluck()
      .all(row.id) as string[];
    return {
      id: row.id,
      email: row.email,
      tenant_id: row.tenant_id,
      role: row.role,
      groups,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }
}
