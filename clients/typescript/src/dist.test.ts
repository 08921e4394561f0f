import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { operationTable } from './operations.generated.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

// What a user installs: ES modules in dist with their .d.ts, and no run-time dependency but the platform's fetch.
test('the package builds with tsc and imports as ESM from dist, depending on nothing at run time', () => {
  const build = spawnSync(
    process.execPath,
    [join('node_modules', 'typescript', 'bin', 'tsc'), '-b', 'clients/typescript'],
    {
      cwd: repoRoot,
      encoding: 'utf8',
    },
  );
  assert.equal(build.status, 0, build.stdout + build.stderr);
  assert.ok(existsSync(`${packageDir}dist/index.d.ts`));

  for (const file of readdirSync(`${packageDir}dist`).filter((f) => f.endsWith('.js'))) {
    const imports = [
      ...readFileSync(`${packageDir}dist/${file}`, 'utf8').matchAll(/^(?:import|export)[^'"]*from '([^']+)'/gm),
    ];
    for (const [, from] of imports) assert.match(from ?? '', /^\.\//, `${file} imports ${from}`);
  }

  // Without the "source" condition, @godb/client resolves to dist/index.js, as it does for a user.
  const script = [
    "import { GoDBClient, GoDBError, operationTable } from '@godb/client';",
    "const client = new GoDBClient({ url: 'http://127.0.0.1:1' });",
    'console.log(typeof client.search.hybrid, typeof GoDBError, Object.keys(operationTable).length);',
  ].join('\n');
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  // One entry per category of the catalogue, as the sources have it.
  assert.equal(run.stdout.trim(), `function function ${Object.keys(operationTable).length}`);
});
