import { existsSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { TarEntry } from './tar-stream.js';

/** Where a release is assembled from: an install whose server, contract and website are built. */
export interface ReleaseSources {
  /** The install's root folder: package.json, server/, contract/, node_modules/. */
  readonly root: string;
  /** The built website (web/dist unless WEB_DIST says otherwise). */
  readonly webDist: string;
  readonly version: string;
  /** Native binaries of other platforms are left out (process.platform and process.arch by default). */
  readonly platform: string;
  readonly arch: string;
  /** The time stamped on generated files (START.txt). */
  readonly now: number;
}

/** The files a release cannot start without; their absence is what `missingForRelease` reports. */
const required = (s: ReleaseSources) => [
  join(s.root, 'package.json'),
  join(s.root, 'server', 'dist', 'main.js'),
  join(s.root, 'contract', 'dist', 'index.js'),
  join(s.webDist, 'index.html'),
];

/** The first file a release needs that this install lacks (relative to its root), or null when it can be built. */
export function missingForRelease(sources: ReleaseSources): string | null {
  const absent = required(sources).find((file) => !existsSync(file));
  return absent === undefined ? null : relative(sources.root, absent) || absent;
}

const workspaces = ['contract', 'server', 'web'] as const;
const knownOs = ['darwin', 'linux', 'win32', 'android', 'freebsd'];

/**
 * Whether a path inside a dependency belongs in the release: not its nested node_modules (they are packages of their
 * own, included when resolved), not source maps, and no native binary built for another platform.
 */
function keepInPackage(rel: string, platform: string, arch: string): boolean {
  if (/(^|\/)node_modules(\/|$)/.test(rel) || rel.endsWith('.map')) return false;
  const m = /(?:^|\/)(?:prebuilds|bin\/napi-v\d+)\/([a-z0-9]+)(?:-([a-z0-9+]+))?(?:\/([a-z0-9]+))?/.exec(rel);
  if (!m) return true;
  const [, os, archA, archB] = m;
  if (os === undefined || !knownOs.includes(os)) return true;
  if (os !== platform) return false;
  const a = archA ?? archB;
  return a === undefined || a.split('+').includes(arch);
}

/** Every file, folder and link under `dir` whose path relative to it passes `keep`, depth first. */
async function walk(dir: string, keep: (rel: string) => boolean, base = dir): Promise<string[]> {
  const out: string[] = [];
  for (const dirent of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, dirent.name);
    const rel = relative(base, path).split(sep).join('/');
    if (!keep(rel)) continue;
    out.push(path);
    if (dirent.isDirectory()) out.push(...(await walk(path, keep, base)));
  }
  return out;
}

interface PackageJson {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/**
 * The production dependencies of the server and contract, as Node resolves them: from each package folder up to
 * the root, the first node_modules/<name> wins. Optional and peer dependencies count when they are installed.
 * Dev dependencies are never followed, so test tools, the web build chain and their data stay out.
 */
function productionPackages(root: string): string[] {
  const found = new Set<string>();
  const queue = ['server', 'contract'].map((ws) => join(root, ws));
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const pkg = JSON.parse(readFileSync(join(next, 'package.json'), 'utf8')) as PackageJson;
    const names = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.peerDependencies });
    for (const name of names) {
      if (name.startsWith('@godb/')) continue; // workspaces: linked below, not copied
      for (let dir = next; ; dir = dirname(dir)) {
        const candidate = join(dir, 'node_modules', name);
        if (existsSync(join(candidate, 'package.json'))) {
          if (!found.has(candidate)) {
            found.add(candidate);
            queue.push(candidate);
          }
          break;
        }
        if (dir === root || dirname(dir) === dir) break;
      }
    }
  }
  return [...found].sort();
}

/**
 * What a release holds, each name under `godb-<version>/`: the compiled server and contract, the built website, the
 * gRPC definitions, the production dependencies (native binaries for this platform only, no source maps), the
 * README, the architecture map with its decision records, and a START.txt. No sources, tests, dev dependencies or data. Unpacked, it starts with
 * `node server/dist/main.js` on Node 20.
 *
 * @example tarStream(await releaseEntries({ root, webDist, version: '0.1.0', platform: 'linux', arch: 'x64', now }))
 */
export async function releaseEntries(sources: ReleaseSources): Promise<TarEntry[]> {
  const { root, version, platform, arch } = sources;
  const top = `godb-${version}`;
  const entries: TarEntry[] = [{ name: `${top}/`, source: root }];
  const add = (source: string, name: string) => entries.push({ name: `${top}/${name}`, source });
  const addTree = async (dir: string, name: string, keep: (rel: string) => boolean) => {
    if (!existsSync(dir)) return;
    add(dir, name);
    for (const path of await walk(dir, keep)) add(path, `${name}/${relative(dir, path).split(sep).join('/')}`);
  };

  for (const file of ['package.json', 'package-lock.json', 'README.md', 'ARCHITECTURE.md', '.npmrc'])
    if (existsSync(join(root, file))) add(join(root, file), file);
  // ARCHITECTURE.md links the decision records.
  await addTree(join(root, 'docs'), 'docs', (rel) => rel.endsWith('.md') || !rel.includes('.'));
  entries.push({
    name: `${top}/START.txt`,
    mtime: sources.now,
    text: `GoDB ${version}\n\nStart it (Node.js 20 or newer):\n\n  node server/dist/main.js\n\nIt serves the website and the API on http://localhost:8081 and keeps its data in ./data.\nConfiguration: environment variables, see README.md. Evaluation only: see the Terms of Service.\n`,
  });
  const compiled = (rel: string) => !rel.endsWith('.map') && !rel.endsWith('.tsbuildinfo');
  for (const ws of workspaces) {
    add(join(root, ws), ws);
    if (existsSync(join(root, ws, 'package.json'))) add(join(root, ws, 'package.json'), `${ws}/package.json`);
    await addTree(ws === 'web' ? sources.webDist : join(root, ws, 'dist'), `${ws}/dist`, compiled);
  }
  await addTree(join(root, 'contract', 'proto'), 'contract/proto', () => true);

  add(join(root, 'node_modules'), 'node_modules');
  for (const dir of productionPackages(root)) {
    const rel = relative(root, dir).split(sep).join('/');
    await addTree(dir, rel, (r) => keepInPackage(r, platform, arch));
  }
  // The workspaces are linked as npm links them, so `@godb/contract` resolves inside the unpacked release.
  for (const ws of workspaces)
    entries.push({ name: `${top}/node_modules/@godb/${ws}`, link: `../../${ws}`, mtime: sources.now });
  return entries;
}
