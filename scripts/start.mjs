#!/usr/bin/env node
// `npm start`: builds what is missing or stale (server, contract, website), then starts GoDB on :8081.
import { spawnSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function newest(dir) {
  let latest = 0;
  if (!existsSync(dir)) return latest;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    const stat = statSync(path);
    latest = Math.max(latest, stat.isDirectory() ? newest(path) : stat.mtimeMs);
  }
  return latest;
}

const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);

function step(label, command, args) {
  process.stdout.write(`▶ ${label}\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// tsc -b is incremental: it does nothing when the sources have not changed.
step('building the server', 'npx', ['--no-install', 'tsc', '-b', 'contract', 'server']);

const webIndex = join(root, 'web', 'dist', 'index.html');
const webSources = Math.max(
  newest(join(root, 'web', 'src')),
  newest(join(root, 'contract', 'src')),
  mtime(join(root, 'web', 'index.html')),
);
if (mtime(webIndex) < webSources) step('building the website', 'npm', ['run', 'build', '-w', 'web', '--silent']);

const server = spawn(process.execPath, [join(root, 'server', 'dist', 'main.js')], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
