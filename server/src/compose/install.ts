import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config/env.js';

/** The checkout (or install) this server runs from. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * The version in the root package.json, or 0.0.0 without one.
 *
 * @example const version = readVersion(); // '0.1.0'
 */
export function readVersion(): string {
  const file = join(repoRoot, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : '0.0.0';
}

/**
 * Where the built website is: WEB_DIST, else web/dist of this checkout.
 *
 * @example webDistOf({ WEB_DIST: '' }); // '<checkout>/web/dist'
 */
export function webDistOf(config: Pick<Config, 'WEB_DIST'>): string {
  return config.WEB_DIST !== '' ? resolve(config.WEB_DIST) : join(repoRoot, 'web', 'dist');
}
