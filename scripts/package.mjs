#!/usr/bin/env node
// npm run package — builds GoDB and writes release/godb-<version>.tar.gz: the compiled server and contract, the
// built website and the production dependencies (native binaries for this platform only). Unpacked, it starts
// with one command on Node 20: node server/dist/main.js
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const name = `godb-${version}`;
const stage = join(root, 'release', 'stage', name);

const run = (label, cmd, args) => {
  process.stdout.write(`▶ ${label}\n`);
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};
run('building server and contract', 'npx', ['--no-install', 'tsc', '-b', 'contract', 'server']);
run('building the website', 'npm', ['run', 'build', '-w', 'web', '--silent']);

rmSync(join(root, 'release', 'stage'), { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
for (const file of ['package.json', 'package-lock.json', 'README.md', 'ARCHITECTURE.md', '.npmrc'])
  cpSync(join(root, file), join(stage, file));
cpSync(join(root, 'contract', 'proto'), join(stage, 'contract', 'proto'), { recursive: true });
for (const ws of ['contract', 'server', 'web']) {
  mkdirSync(join(stage, ws), { recursive: true });
  cpSync(join(root, ws, 'package.json'), join(stage, ws, 'package.json'));
  cpSync(join(root, ws, 'dist'), join(stage, ws, 'dist'), {
    recursive: true,
    filter: (p) => !p.endsWith('.map') && !p.endsWith('.tsbuildinfo'),
  });
}

// Production dependencies only, as npm resolves them (the workspace links are recreated by the copy).
process.stdout.write('▶ copying production dependencies\n');
const listing = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable', '-w', 'server'], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 1 << 26,
});
const paths = [
  ...new Set(
    listing
      .split('\n')
      .map((p) => p.trim())
      .filter((p) => p.startsWith(root) && p.includes('/node_modules/')),
  ),
];
const platform = `${process.platform}`;
const arch = `${process.arch}`;
for (const source of paths) {
  const target = join(stage, relative(root, source));
  cpSync(source, target, {
    recursive: true,
    dereference: false,
    // Native binaries for other platforms are dead weight in a release for this one.
    filter: (p) => {
      const rel = relative(source, p);
      if (/(^|\/)node_modules(\/|$)/.test(rel)) return false;
      const m = /(?:^|\/)(?:prebuilds|bin\/napi-v\d+)\/([a-z0-9]+)(?:-([a-z0-9+]+))?(?:\/([a-z0-9]+))?/.exec(rel);
      if (m) {
        const [, os, archA, archB] = m;
        if (os && !['darwin', 'linux', 'win32', 'android', 'freebsd'].includes(os)) return true;
        if (os && os !== platform) return false;
        const a = archA ?? archB;
        if (a && !a.split('+').includes(arch)) return false;
      }
      return true;
    },
  });
}
for (const ws of ['contract', 'server', 'web']) {
  const link = join(stage, 'node_modules', '@godb', ws);
  rmSync(link, { recursive: true, force: true });
  mkdirSync(join(stage, 'node_modules', '@godb'), { recursive: true });
  execFileSync('ln', ['-s', `../../${ws}`, link]);
}
writeFileSync(
  join(stage, 'START.txt'),
  `GoDB ${version}\n\nStart it (Node.js 20 or newer):\n\n  node server/dist/main.js\n\nIt serves the website and the API on http://localhost:8081 and keeps its data in ./data.\nConfiguration: environment variables, see README.md. Evaluation only: see the Terms of Service.\n`,
);
const tarball = join(root, 'release', `${name}.tar.gz`);
process.stdout.write(`▶ writing ${relative(root, tarball)}\n`);
execFileSync('tar', ['-czf', tarball, '-C', join(root, 'release', 'stage'), name]);
rmSync(join(root, 'release', 'stage'), { recursive: true, force: true });
const size = Number(execFileSync('stat', ['-c', '%s', tarball], { encoding: 'utf8' }));
process.stdout.write(
  `Done: ${relative(root, tarball)} (${(size / 2 ** 20).toFixed(1)} MiB). Unpack and run: node server/dist/main.js\n`,
);
if (!existsSync(tarball)) process.exit(1);
