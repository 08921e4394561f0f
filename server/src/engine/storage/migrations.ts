/**
 * Schema migrations, applied in order inside one transaction each; `PRAGMA user_version` records the last one.
 * Never edit a released migration: add a new one.
 */
export const migrations: readonly { readonly version: number; readonly description: string; readonly sql: string }[] = [
  {
    version: 1,
    description: 'tenants, users, groups, permissions',
    sql: `
      CREATE TABLE tenants (
        id TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        email TEXT NOT NULL COLLATE NOCASE UNIQUE,
        password_hash TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'admin', 'superadmin')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX users_tenant ON users(tenant_id, created_at);
      CREATE TABLE groups (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (tenant_id, name)
      ) STRICT;
      CREATE TABLE group_members (
        group_id TEXT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        PRIMARY KEY (group_id, user_id)
      ) STRICT;
      CREATE INDEX group_members_user ON group_members(user_id);
      CREATE TABLE permissions (
        id TEXT PRIMARY KEY,
        resource TEXT NOT NULL,
        action TEXT NOT NULL,
        description TEXT NOT NULL,
        UNIQUE (resource, action)
      ) STRICT;
      CREATE TABLE group_permissions (
        group_id TEXT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
        permission_id TEXT NOT NULL REFERENCES permissions(id) ON DELETE CASCADE,
        PRIMARY KEY (group_id, permission_id)
      ) STRICT;
    `,
  },
];
