import type { Directory } from '../../engine/directory/directory.js';
import type { PasswordHasher } from './passwords.js';
import type { TokenService } from './tokens.js';

export interface AuthDeps {
  readonly directory: Directory;
  readonly passwords: PasswordHasher;
  readonly tokens: TokenService;
}
