import type { ApiKeyStore } from '../../engine/directory/api-key-store.js';
import type { OperationLog } from '../../engine/operations/operation.js';
import type { Directory } from '../../engine/directory/directory.js';
import type { ApiKeyRateLimit } from './api-keys.js';
import type { PasswordHasher } from './passwords.js';
import type { WriteClock } from '../write-time.js';
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
  /** The engine's clock, which an embedded write is run at its decided time with (see atDecidedTime). */
  readonly writeClock?: WriteClock;
  /** Cluster mode: the replicated log that takes users and tenants (absent: the embedded store). */
  readonly log?: OperationLog | null;
}
