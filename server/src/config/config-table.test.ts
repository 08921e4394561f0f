import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configTable } from './config-table.js';

test('the README configuration table is the one generated from the config schema', () => {
  const readme = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');
  assert.ok(readme.includes(configTable()), 'README.md is stale: run `npm run docs:config`');
});
