import { createError, type RoleName } from '@godb/contract';
import { unixSeconds, type Clock } from '../clock.js';
import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';

/** An API key as stored: the hash of its secret, never the secret. */
export interface StoredApiKey {
  readonly id: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly userEmail: string;
  readonly name: string;
  readonly role: RoleName;
  readonly secretHash: Buffer;
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly lastUsedAt: number | null;
}

export interface NewApiKey {
  readonly id: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly name: string;
  readonly role: RoleName;
  readonly secretHash: Buffer;
  readonly expiresAt: number | null;
}

interface Row {
  id: string;
  tenant_id: string;
  user_id: string;
  user_email: string;
  name: string;
  role: RoleName;
  secret_hash: Buffer;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
}

const columns = `k.id, k.tenant_id, k.user_id, u.email AS user_email, k.name, k.role, k.secret_hash, k.created_at,
  k.expires_at, k.last_used_at`;

const toKey = (row: Row): StoredApiKey => ({
  id: row.id,
  tenantId: row.tenant_id,
  userId: row.user_id,
  userEmail: row.user_email,
  name: row.name,
  role: row.role,
  secretHash: row.secret_hash,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  lastUsedAt: row.last_used_at,
});

/**
 * API keys of users. A key belongs to its user and tenant: every list and revocation takes the tenant id, so a key
 * of another tenant is simply not found, and a deleted user's keys are deleted with them (ON DELETE CASCADE).
 */
/** What revoking a key needs, decided by the caller: a serialisable command (it travels in the log as is). */
export interface RevokeApiKey {
  readonly tenantId: string;
  /** (Not `id`: in the log that is the operation's own.) */
  readonly keyId: string;
  /** Only a key of this user (a caller who may revoke only their own), or any of the tenant's (null). */
  readonly userId: string | null;
}

export class ApiKeyStore {
  readonly #statements: StatementCache;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.#statements = new StatementCache(db);
  }

  /** Stores a new key unless its user already holds `maxPerUser` keys (400 API_KEY_LIMIT). */
  insert(key: NewApiKey, maxPerUser: number): StoredApiKey {
    return this.db.transaction(() => {
      const held = this.#statements.get('SELECT count(*) FROM api_keys WHERE user_id = ?').pluck().get(key.userId);
      if ((held as number) >= maxPerUser) throw createError('API_KEY_LIMIT', { limit: maxPerUser });
      this.#statements
        .get(
          `INSERT INTO api_keys (id, tenant_id, user_id, name, role, secret_hash, created_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          key.id,
          key.tenantId,
          key.userId,
          key.name,
          key.role,
          key.secretHash,
          unixSeconds(this.clock),
          key.expiresAt,
        );
      const stored = this.find(key.id);
      if (!stored) throw new TypeError(`API key ${key.id} vanished inside its own transaction`);
      return stored;
    })();
  }

  /** The key with this id, with its owner's e-mail; read from the store on every call, so a revocation is seen at once. */
  find(id: string): StoredApiKey | undefined {
    const row = this.#statements
      .get(`SELECT ${columns} FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.id = ?`)
      .get(id) as Row | undefined;
    return row && toKey(row);
  }

  /** Keys of a tenant, newest first: all of them, or those of one user when `userId` is given. */
  list(
    tenantId: string,
    userId: string | null,
    offset: number,
    limit: number,
  ): { keys: StoredApiKey[]; total: number } {
    const owner = userId === null ? '' : 'AND k.user_id = ?';
    const args = userId === null ? [tenantId] : [tenantId, userId];
    const rows = this.#statements
      .get(
        `SELECT ${columns} FROM api_keys k JOIN users u ON u.id = k.user_id
         WHERE k.tenant_id = ? ${owner} ORDER BY k.created_at DESC, k.id LIMIT ? OFFSET ?`,
      )
      .all(...args, limit, offset) as Row[];
    const total = this.#statements
      .get(`SELECT count(*) FROM api_keys k WHERE k.tenant_id = ? ${owner}`)
      .pluck()
      .get(...args) as number;
    return { keys: rows.map(toKey), total };
  }

  /** Deletes a key of the tenant (of one user when `userId` is given); false when there is no such key. */
  delete(tenantId: string, id: string, userId: string | null): boolean {
    const { changes } =
      userId === null
        ? this.#statements.get('DELETE FROM api_keys WHERE id = ? AND tenant_id = ?').run(id, tenantId)
        : this.#statements
            .get('DELETE FROM api_keys WHERE id = ? AND tenant_id = ? AND user_id = ?')
            .run(id, tenantId, userId);
    return changes > 0;
  }

  /**
   * Revokes a key: the one write of the revoke-api-key operation, in both modes (the embedded store calls it
   * directly, the applier with the operation's command); NOT_FOUND when there is no such key (of that user when
   * `userId` is given), decided in log order in cluster mode.
   *
   * @example apiKeys.revoke({ tenantId, keyId: 'k1', userId: null });
   */
  revoke(command: RevokeApiKey): true {
    if (!this.delete(command.tenantId, command.keyId, command.userId)) {
      throw createError('NOT_FOUND', { resource: 'API key', id: command.keyId });
    }
    return true;
  }

  /** Records that the key was used at `seconds` (callers write at most once a minute per key). */
  touch(id: string, seconds: number): void {
    this.#statements.get('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(seconds, id);
  }
}
