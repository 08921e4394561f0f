import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeDurably } from '../engine/storage/durable-files.js';
import { jwtSecretMinLength } from './env.js';

/**
 * The JWT signing secret: the configured one, else the one generated on first start and kept in
 * DATA_DIR/jwt-secret (mode 0600), so tokens survive restarts without any configuration. The file is written
 * durably (temporary file, fsync, rename); one found shorter than a secret may be (a write cut short by a crash
 * before that was so) is replaced rather than signed with.
 */
export function resolveJwtSecret(dataDir: string, configured: string): string {
  if (configured !== '') return configured;
  if (dataDir === ':memory:') return randomBytes(48).toString('base64url');
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length >= jwtSecretMinLength) return kept;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeDurably(file, (tmp) => writeFileSync(tmp, `${secret}\n`, { mode: 0o600 }));
  return secret;
}
