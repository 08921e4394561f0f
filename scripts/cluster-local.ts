// `npm run cluster:local [-- --nodes N]`: a whole cluster on this machine, to try cluster mode (issue #17): three
// nats-server processes forming a JetStream cluster, and N GoDB nodes on it (three by default, 1 to 9; issue #41). Prints where everything listens; Ctrl-C stops
// it all and removes its temporary folders. Needs Debian's nats-server (apt-get install -y nats-server).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startNatsCluster } from '../server/src/test-support/nats-cluster.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const basePort = Number(process.env.CLUSTER_PORT ?? 8081);

/** `--nodes N` (or `--nodes=N`): how many GoDB nodes, 1 to 9 (node ids a … i, ports CLUSTER_PORT + i). */
function nodeCount(args: readonly string[]): number {
  const at = args.findIndex((a) => a === '--nodes' || a.startsWith('--nodes='));
  if (at < 0) return 3;
  const arg = args[at]!;
  const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[at + 1];
  const count = Number(value);
  if (value === undefined || !/^\d+$/.test(value) || count < 1 || count > 9) {
    process.stderr.write(
      `--nodes takes a whole number from 1 to 9 (got ${value ?? 'nothing'}), e.g. npm run cluster:local -- --nodes 5\n`,
    );
    process.exit(2);
  }
  return count;
}
const names = 'abcdefghi'.split('').slice(0, nodeCount(process.argv.slice(2)));

const nats = await startNatsCluster();
const dataRoot = mkdtempSync(join(tmpdir(), 'godb-cluster-local-'));
const jwtSecret = randomBytes(32).toString('hex');
const children: ChildProcess[] = [];
// One model cache for the nodes, kept between runs: GloVe is converted once on this machine (when a request
// first names glove-100), not once per node (issue #37).
const modelCacheDir = process.env.MODEL_CACHE_DIR ?? join(tmpdir(), 'godb-model-cache');

const nodes = names.map((name, i) => ({
  name,
  url: `http://127.0.0.1:${basePort + i}`,
  grpc: 50051 + i,
  dataDir: join(dataRoot, `node-${name}`),
}));

let stopping = false;
async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    process.stdout.write('\nstopping the GoDB nodes, then NATS …\n');
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    await nats.stop();
    rmSync(dataRoot, { recursive: true, force: true });
  }
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

for (const [i, node] of nodes.entries()) {
  const child = spawn(process.execPath, [join(root, 'server', 'dist', 'main.js')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(basePort + i),
      HOST: '127.0.0.1',
      GRPC_PORT: String(node.grpc),
      DATA_DIR: node.dataDir,
      NATS_URL: nats.url,
      NODE_ID: node.name,
      JWT_SECRET: jwtSecret,
      MODEL_CACHE_DIR: modelCacheDir,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.once('exit', (code, signal) => {
    if (!stopping) {
      process.stderr.write(`GoDB node ${node.name} exited (${code ?? signal}); stopping the cluster\n`);
      void stop(1);
    }
  });
  children.push(child);
}

// Ready once every node answers /readyz (a bound for a broken start, not a timing).
for (const node of nodes) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      if ((await fetch(`${node.url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (attempt > 600) {
      process.stderr.write(`GoDB node ${node.name} did not become ready in 60 s\n`);
      await stop(1);
    }
    await sleep(100);
  }
}

process.stdout.write(`
GoDB cluster mode (preview): 3 NATS JetStream servers, ${nodes.length} GoDB node${nodes.length === 1 ? '' : 's'}; any node takes reads and writes.

  NATS       ${nats.urls.join('  ')}
${nodes.map((n) => `  node ${n.name}     ${n.url}   (gRPC 127.0.0.1:${n.grpc})`).join('\n')}
  data       ${dataRoot} (removed on stop)
  models     ${modelCacheDir} (shared by the nodes, kept)

Try it: register on node a, log in on node ${nodes.at(-1)!.name}:
  curl -s -X POST ${nodes[0]!.url}/auth/register -H 'content-type: application/json' \\
    -d '{"email":"me@example.com","password":"password-1234","tenant_id":"6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70"}'
  curl -s -X POST ${nodes.at(-1)!.url}/auth/login -H 'content-type: application/json' \\
    -d '{"email":"me@example.com","password":"password-1234"}'
Each node's /readyz shows its place in the log (cluster.applied_seq, cluster.lag); GET /api/v1/cluster (an admin's
token) shows the nodes and the shard streams. Ctrl-C stops everything.
`);
