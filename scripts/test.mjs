#!/usr/bin/env node
// The whole suite, as `npm test` runs it: build, type-check, lint, then every test file of every workspace
// (unit and integration beside the code, browser tests in e2e/) with Node's test runner.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;

function run(label, command, commandArgs, options = {}) {
  process.stdout.write(`\n▶ ${label}\n`);
  const result = spawnSync(command, commandArgs, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...options.env },
  });
  if (result.status !== 0) {
    process.stderr.write(`\n✖ ${label} failed (exit ${result.status ?? result.signal})\n`);
    process.exit(result.status ?? 1);
  }
}

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (/\.test\.tsx?$/.test(name)) found.push(relative(root, path));
  }
  return found.sort();
}

const npx = (tool, toolArgs) => ['npx', ['--no-install', tool, ...toolArgs]];

if (only !== 'unit') {
  run(
    'build: contract, server, clients and integrations (tsc -b)',
    ...npx('tsc', [
      '-b',
      'contract',
      'server',
      'clients/typescript',
      'integrations/langchain',
      'integrations/llamaindex',
    ]),
  );
  run('build: website (vite)', 'npm', ['run', 'build', '-w', 'web', '--silent']);
  run('type-check: tests and web', ...npx('tsc', ['-p', 'contract/tsconfig.test.json']));
  run('type-check: server tests', ...npx('tsc', ['-p', 'server/tsconfig.test.json']));
  run('type-check: TypeScript client tests', ...npx('tsc', ['-p', 'clients/typescript/tsconfig.test.json']));
  run('type-check: LangChain integration tests', ...npx('tsc', ['-p', 'integrations/langchain/tsconfig.test.json']));
  run('type-check: LlamaIndex integration tests', ...npx('tsc', ['-p', 'integrations/llamaindex/tsconfig.test.json']));
  run('type-check: web', ...npx('tsc', ['-p', 'web/tsconfig.json']));
  run('type-check: e2e', ...npx('tsc', ['-p', 'e2e/tsconfig.json']));
  run('type-check: Python client tests', ...npx('tsc', ['-p', 'clients/python/tsconfig.json']));
  run('lint: eslint', ...npx('eslint', ['--max-warnings=0', '.']));
  run('format: prettier', ...npx('prettier', ['--check', '--log-level=warn', '.']));
}

const unit = [
  'contract/src',
  'server/src',
  'clients/typescript/src',
  'clients/python',
  'integrations/langchain/src',
  'integrations/llamaindex/src',
  'web/src',
].flatMap((d) => findTests(join(root, d)));
const browser = only === 'unit' ? [] : findTests(join(root, 'e2e'));
const tap = join(mkdtempSync(join(tmpdir(), 'godb-tap-')), 'results.tap');
const result = spawnSync(
  process.execPath,
  [
    // Workspace packages resolve to their TypeScript sources (the "source" export condition), never a stale build.
    '--conditions=source',
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${tap}`,
    ...unit,
    ...browser,
  ],
  { cwd: root, stdio: 'inherit' },
);
// A plain closing line, whatever reads this output.
const counts = readFileSync(tap, 'utf8');
rmSync(dirname(tap), { recursive: true, force: true });
const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(counts)?.[1] ?? 0);
process.stdout.write(`\n${count('pass')} passed, ${count('fail')} failed\n`);
process.exit(result.status ?? 1);
