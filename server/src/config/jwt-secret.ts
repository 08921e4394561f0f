import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The JWT signing secret: the configured one, else the one generated on first start and kept in
 * DATA_DIR/jwt-secret (mode 0600), so tokens survive restarts without any configuration.
 */
export function resolveJwtSecret(dataDir: string, configured: string): string {
  if (configured !== '') return configured;
  if (dataDir === ':memory:') return randomBytes(48).toString('base64url');
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}
