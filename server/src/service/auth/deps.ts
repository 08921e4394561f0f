import type { ApiKeyStore } from '../../engine/directory/api-key-store.js';
import type { OperationLog } from '../../engine/operations/operation.js';
import type { Directory } from '../../engine/directory/directory.js';
import type { ApiKeyRateLimit } from './api-keys.js';
import type { PasswordHasher } from './passwords.js';
import type { TokenService } from './tokens.js';

export interface AuthDeps {
  readonly directory: Directory;
  readonly passwords: PasswordHasher;
  readonly tokens: TokenService;
  readonly apiKeys: ApiKeyStore;
  /** Per-key request budgets, one shared by every transport. */
  readonly apiKeyRateLimit: ApiKeyRateLimit;
  /** Milliseconds since the Unix epoch (the engine's clock). */
  readonly now: () => number;
  /** The log every write is submitted to (users, tenants, groups, keys). */
  readonly log: OperationLog;
}
