// npm run bench:compare -- <baseRef> <headRef> — two git refs measured in one run on this machine (issue #38's
// "measure before and after"). Each ref is checked out as a detached worktree in a temporary folder with this
// checkout's node_modules copied in (`cp -a`: their workspace links are relative, so they resolve to the worktree's
// own packages; a symlinked node_modules would resolve them to this checkout's) and built (`tsc -b contract server`).
// Then, for each round, each measurement runs on base and then head (A B A B …), each in a fresh driver process that
// starts that worktree's built server: bench:scale's import at 100k (bench/compare-import.ts), bench:search's HTTP
// QPS (bench/compare-search.ts) and bench:cluster's acknowledged writes/s (bench/compare-cluster.ts). The drivers
// run from this checkout, so both refs get the same data, client and load generator. Printed and saved to
// bench/results/compare-<base>-<head>.json: per metric each ref's median, head/base, and each ref's spread over its
// rounds, (max − min) / median. The worktrees are removed at the end, also on failure or interruption.
// Options: --rounds N (2), --only import,search,cluster, --import-docs N (100000), --search-docs N (100000),
// --seconds N (10, each search and write measurement), --index-catch-up (also time the HNSW graph after the
// import), --label text (added to the result file's name).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resultPrefix, type Metric } from './compare-server.js';
import { saveResults, table } from './support.js';

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '2' },
    only: { type: 'string', default: 'import,search,cluster' },
    'import-docs': { type: 'string', default: '100000' },
    'search-docs': { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '10' },
    'index-catch-up': { type: 'boolean', default: false },
    label: { type: 'string' },
  },
});
if (positionals.length !== 2) {
  process.stderr.write('usage: npm run bench:compare -- <baseRef> <headRef> [--rounds N] [--only import,search]\n');
  process.exit(2);
}
const rounds = Number(options.rounds);
const repoRoot = join(import.meta.dirname, '..');
const measurements = {
  import: {
    env: { BENCH_DOCS: options['import-docs'], COMPARE_INDEX_CATCH_UP: options['index-catch-up'] ? '1' : '0' },
  },
  search: { env: { BENCH_DOCS: options['search-docs'], BENCH_SECONDS: options.seconds } },
  cluster: { env: { BENCH_SECONDS: options.seconds } },
} as const;
type Measurement = keyof typeof measurements;
const selected = options.only.split(',').map((m) => m.trim()) as Measurement[];
for (const m of selected) if (!(m in measurements)) throw new Error(`--only: no measurement ${m}`);

/** Runs a command to its end, its output shown; throws on failure. */
function run(command: string, args: readonly string[], cwd: string): void {
  const done = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (done.status !== 0) throw new Error(`${command} ${args.join(' ')} in ${cwd}: exit ${done.status ?? done.signal}`);
}
function git(...args: string[]): string {
  const done = spawnSync('git', args, { cwd: repoRoot, encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`git ${args.join(' ')}: ${done.stderr.trim()}`);
  return done.stdout.trim();
}

interface Side {
  readonly name: 'base' | 'head';
  readonly ref: string;
  readonly sha: string;
  readonly dir: string;
  /** Each metric's value in each round, in order. */
  readonly values: Map<string, number[]>;
}
const startedAt = performance.now();
const loadAtStart = loadavg();
const temp = mkdtempSync(join(tmpdir(), 'godb-bench-compare-'));
const sides: Side[] = (['base', 'head'] as const).map((name, i) => ({
  name,
  ref: positionals[i]!,
  sha: git('rev-parse', '--verify', `${positionals[i]!}^{commit}`),
  dir: join(temp, name),
  values: new Map(),
}));
const higherIsBetter = new Map<string, boolean>();
const driverSeconds: Record<string, number[]> = {};

let current: ChildProcess | null = null;
let cleaned = false;
/** Removes the worktrees and the temporary folder (their registrations too); safe to call twice. */
function cleanUp(): void {
  if (cleaned) return;
  cleaned = true;
  for (const side of sides)
    if (existsSync(side.dir)) spawnSync('git', ['worktree', 'remove', '--force', side.dir], { cwd: repoRoot });
  rmSync(temp, { recursive: true, force: true });
  spawnSync('git', ['worktree', 'prune'], { cwd: repoRoot });
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the driver and removing the worktrees…\n`);
    const exit = () => {
      cleanUp();
      process.exit(130);
    };
    if (current && current.exitCode === null) {
      current.once('exit', exit);
      current.kill('SIGTERM');
    } else exit();
  });

/** The workspace folders whose node_modules a checkout needs (the root's first). */
function nodeModulesFolders(): string[] {
  const workspaces = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] })
    .workspaces;
  return ['.', ...workspaces].filter((w) => existsSync(join(repoRoot, w, 'node_modules')));
}

/** Makes the worktree of `side`, copies node_modules in and builds it. */
function prepare(side: Side): void {
  process.stdout.write(`\n── ${side.name}: ${side.ref} (${side.sha.slice(0, 10)}) in ${side.dir}\n`);
  git('worktree', 'add', '--detach', side.dir, side.sha);
  for (const folder of nodeModulesFolders()) {
    if (!existsSync(join(side.dir, folder))) continue; // a workspace this ref does not have
    run('cp', ['-a', join(repoRoot, folder, 'node_modules'), join(side.dir, folder, 'node_modules')], repoRoot);
  }
  // The workspace links must lead into this worktree, or the drivers would measure another checkout's code.
  const contract = realpathSync(join(side.dir, 'node_modules', '@godb', 'contract'));
  if (contract !== realpathSync(join(side.dir, 'contract')))
    throw new Error(`${side.dir}: @godb/contract resolves to ${contract}, not the worktree's own`);
  if (
    readFileSync(join(side.dir, 'package-lock.json'), 'utf8') !==
    readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')
  )
    process.stdout.write(`  note: ${side.ref}'s package-lock.json differs from this checkout's node_modules\n`);
  const t = performance.now();
  run('npx', ['tsc', '-b', 'contract', 'server'], side.dir);
  process.stdout.write(`  built in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
}

/** Runs one driver on one side's worktree; its output is shown with a prefix and its metrics recorded. */
function measure(side: Side, m: Measurement, round: number): Promise<void> {
  const tag = `[${side.name} r${round} ${m}]`;
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--conditions=source',
        '--import',
        'tsx',
        '--max-old-space-size=8192',
        join('bench', `compare-${m}.ts`),
        '--root',
        side.dir,
      ],
      {
        cwd: repoRoot,
        env: { ...process.env, ...measurements[m].env, COMPARE_CACHE_DIR: temp },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    current = child;
    let result: Record<string, Metric> | null = null;
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith(resultPrefix)) result = JSON.parse(line.slice(resultPrefix.length)) as typeof result;
        else process.stdout.write(`${tag} ${line}\n`);
      }
    });
    child.once('exit', (code, signal) => {
      current = null;
      if (code !== 0 || result === null) return reject(new Error(`${tag} failed: exit ${code ?? signal}`));
      for (const [name, metric] of Object.entries(result as Record<string, Metric>)) {
        higherIsBetter.set(name, metric.higherIsBetter);
        side.values.set(name, [...(side.values.get(name) ?? []), metric.value]);
      }
      (driverSeconds[m] ??= []).push((performance.now() - t) / 1000);
      resolve();
    });
  });
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const spread = (values: readonly number[]) => (Math.max(...values) - Math.min(...values)) / median(values);
const shown = (v: number) => (v >= 100 ? Math.round(v).toLocaleString('en') : v.toFixed(2));
const percent = (v: number) => `${(v * 100).toFixed(1)} %`;

/** Each metric's medians, head/base, spreads and verdict over the rounds measured so far. */
function summary() {
  const [base, head] = sides as [Side, Side];
  return [...base.values.keys()].map((metric) => {
    const a = base.values.get(metric)!;
    const b = head.values.get(metric) ?? [];
    const ratio = median(b) / median(a);
    const noise = Math.max(spread(a), spread(b));
    const better = higherIsBetter.get(metric) ? ratio > 1 : ratio < 1;
    return {
      metric,
      higherIsBetter: higherIsBetter.get(metric)!,
      base: { values: a, median: median(a), spread: spread(a) },
      head: { values: b, median: median(b), spread: spread(b) },
      ratio,
      verdict: Math.abs(ratio - 1) <= noise ? 'within noise' : better ? 'better' : 'worse',
    };
  });
}

/**
 * Saves bench/results/compare-<base>-<head>[-label].json with the rounds done so far (after each round, so that a
 * run stopped later keeps them; `incomplete` says how many of how many).
 */
function save(done: number, setupSeconds: number): void {
  const [base, head] = sides as [Side, Side];
  const name = `compare-${base.sha.slice(0, 7)}-${head.sha.slice(0, 7)}${options.label ? `-${options.label}` : ''}`;
  saveResults(name, {
    base: { ref: base.ref, sha: base.sha },
    head: { ref: head.ref, sha: head.sha },
    rounds: done,
    ...(done < rounds && { incomplete: `${done} of ${rounds} rounds` }),
    order: 'each round: every measurement on base, then on head',
    options,
    load_average: { start: loadAtStart, end: loadavg() },
    seconds: {
      total: Math.round((performance.now() - startedAt) / 1000),
      setup: Math.round(setupSeconds),
      drivers: Object.fromEntries(Object.entries(driverSeconds).map(([m, s]) => [m, s.map(Math.round)])),
    },
    metrics: summary(),
  });
}

try {
  process.stdout.write(
    `bench:compare ${sides[0]!.ref} → ${sides[1]!.ref}: ${rounds} rounds of ${selected.join(', ')}, load average ${loadAtStart.map((l) => l.toFixed(1)).join(' ')}\n`,
  );
  for (const side of sides) prepare(side);
  const setupSeconds = (performance.now() - startedAt) / 1000;
  for (let round = 1; round <= rounds; round += 1) {
    for (const m of selected) for (const side of sides) await measure(side, m, round);
    save(round, setupSeconds);
  }
  const [base, head] = sides as [Side, Side];
  process.stdout.write(
    `\n${base.ref} (${base.sha.slice(0, 7)}) → ${head.ref} (${head.sha.slice(0, 7)}), ${rounds} rounds each, A B alternating; spread = (max − min) / median of a ref's rounds\n`,
  );
  table(
    summary().map((r) => ({
      metric: r.metric,
      'base median': shown(r.base.median),
      'head median': shown(r.head.median),
      'head/base': r.ratio.toFixed(3),
      'base spread': percent(r.base.spread),
      'head spread': percent(r.head.spread),
      'vs noise': r.verdict,
      'base rounds': r.base.values.map(shown).join(' '),
      'head rounds': r.head.values.map(shown).join(' '),
    })),
  );
  process.stdout.write(
    `\nMeasured in ${((performance.now() - startedAt) / 60_000).toFixed(1)} min (set-up ${(setupSeconds / 60).toFixed(1)} min); load average at the end ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
} finally {
  cleanUp();
  process.stdout.write(`Done in ${((performance.now() - startedAt) / 60_000).toFixed(1)} min, worktrees removed\n`);
}
