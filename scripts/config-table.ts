// Prints (or, with --write, writes into README.md between the config-table markers) the configuration table
// generated from the server's config schema, so the README cannot drift from the code.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configTable } from '../server/src/config/config-table.js';

const readme = fileURLToPath(new URL('../README.md', import.meta.url));
const start = '<!-- config-table:start -->';
const end = '<!-- config-table:end -->';

if (process.argv.includes('--write')) {
  const text = readFileSync(readme, 'utf8');
  const before = text.slice(0, text.indexOf(start) + start.length);
  const after = text.slice(text.indexOf(end));
  writeFileSync(readme, `${before}\n${configTable()}\n${after}`);
} else {
  process.stdout.write(`${configTable()}\n`);
}
