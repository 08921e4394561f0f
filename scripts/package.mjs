#!/usr/bin/env node
// npm run package — builds GoDB and writes release/godb-<version>.tar.gz (RELEASE_DIR when set): the compiled server
// and contract, the built website and the production dependencies (native binaries for this platform only, no source
// maps). Unpacked, it starts with one command on Node 20: node server/dist/main.js
// The server builds the very same archive on the first download of a mailed link when nobody ran this script: both
// use server/src/service/mail/release-files.ts, so what a release holds is decided in one place.
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createGzip } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const releaseDir = resolve(root, process.env.RELEASE_DIR || 'release');

const run = (label, cmd, args) => {
  process.stdout.write(`▶ ${label}\n`);
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};
run('building server and contract', 'npx', ['--no-install', 'tsc', '-b', 'contract', 'server']);
run('building the website', 'npm', ['run', 'build', '-w', 'web', '--silent']);

const load = (file) => import(pathToFileURL(join(root, 'server', 'dist', 'service', 'mail', file)).href);
const { releaseEntries, missingForRelease } = await load('release-files.js');
const { tarStream } = await load('tar-stream.js');
const sources = {
  root,
  webDist: join(root, 'web', 'dist'),
  version,
  platform: process.platform,
  arch: process.arch,
  now: Date.now(),
};
const missing = missingForRelease(sources);
if (missing !== null) {
  process.stderr.write(`Cannot package: ${missing} is missing after the build.\n`);
  process.exit(1);
}
const tarball = join(releaseDir, `godb-${version}.tar.gz`);
const partial = `${tarball}.partial`;
process.stdout.write(`▶ writing ${relative(root, tarball)}\n`);
mkdirSync(releaseDir, { recursive: true });
await pipeline(Readable.from(tarStream(await releaseEntries(sources))), createGzip(), createWriteStream(partial));
renameSync(partial, tarball);
const size = statSync(tarball).size;
process.stdout.write(
  `Done: ${relative(root, tarball)} (${(size / 2 ** 20).toFixed(1)} MiB). Unpack and run: node server/dist/main.js\n`,
);
