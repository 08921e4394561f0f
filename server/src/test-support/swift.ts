import {
  CreateBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A real OpenStack Swift with its S3 API (the `s3api` middleware), from Debian's packages, on loopback: one proxy,
 * one account, one container and one object server and a memcached, with rings of one device in a temporary
 * folder. Start it once per test file; `stop()` ends every process and removes the folder.
 *
 * @example
 *   const swift = await startSwift();
 *   await swift.createBucket('godb');
 *   const server = await startTestServer(swift.godbEnv('godb'));
 *   …
 *   await swift.stop();
 */
export interface SwiftS3 {
  /** The S3 API's base URL (path-style addressing). */
  readonly endpoint: string;
  readonly region: string;
  /** tempauth user `godb:tester`, as S3 keys. */
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** An S3 client on this Swift, for tests to look into buckets. */
  readonly client: S3Client;
  /** GoDB's settings for a bucket of this Swift. */
  godbEnv(bucket: string, extra?: Record<string, string>): Record<string, string>;
  createBucket(name: string): Promise<void>;
  /** Every key in a bucket (under `prefix`). */
  keys(bucket: string, prefix?: string): Promise<string[]>;
  /** The object's ETag (a multipart upload's ends in `-<parts>`), or null when there is none. */
  etag(bucket: string, key: string): Promise<string | null>;
  /** Stops the proxy alone: the S3 API cannot be reached until `startProxy()` (an outage of the store). */
  stopProxy(): Promise<void>;
  /** Starts the proxy again on the same port and waits until the S3 API answers. */
  startProxy(): Promise<void>;
  stop(): Promise<void>;
}

/** What must be installed: `.ci/run` installs these Debian packages when they are missing. */
export const swiftPackages = ['swift', 'swift-proxy', 'swift-account', 'swift-container', 'swift-object', 'memcached'];

const programs = [
  '/usr/bin/swift-ring-builder',
  '/usr/bin/swift-proxy-server',
  '/usr/bin/swift-account-server',
  '/usr/bin/swift-container-server',
  '/usr/bin/swift-object-server',
  '/usr/bin/memcached',
];

const region = 'us-east-1';
const accessKeyId = 'godb:tester';
const secretAccessKey = 'testing';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** The [DEFAULT] section every server's configuration starts with: loopback, one process, no syslog. */
const defaults = (port: number, root: string, user: string) => `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
workers = 0
user = ${user}
swift_dir = ${root}/etc
log_address = ${root}/no-syslog
log_level = WARNING`;

const storageConf = (kind: string, port: number, root: string, user: string) => `${defaults(port, root, user)}
devices = ${root}/srv
mount_check = false

[pipeline:main]
pipeline = ${kind}-server

[app:${kind}-server]
use = egg:swift#${kind}
`;

/** The proxy pipeline's middlewares that take no settings, by their name in the pipeline: their egg. */
const plainFilters = {
  catch_errors: 'catch_errors',
  gatekeeper: 'gatekeeper',
  healthcheck: 'healthcheck',
  'proxy-logging': 'proxy_logging',
  listing_formats: 'listing_formats',
  copy: 'copy',
  slo: 'slo',
  dlo: 'dlo',
};

const proxyConf = (port: number, memcachedPort: number, root: string, user: string) => `${defaults(port, root, user)}

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
location = ${region}

[filter:tempauth]
use = egg:swift#tempauth
user_godb_tester = ${secretAccessKey} .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:${memcachedPort}

${Object.entries(plainFilters)
  .map(([name, egg]) => `[filter:${name}]\nuse = egg:swift#${egg}\n`)
  .join('')}`;

/**
 * Starts Swift in a new temporary folder and waits until its S3 API answers. Throws, naming the Debian packages
 * to install, when Swift is not installed: a test that needs it fails rather than passing without it.
 */
export async function startSwift(): Promise<SwiftS3> {
  const missing = programs.filter((p) => !existsSync(p));
  if (missing.length > 0) {
    throw new Error(
      `OpenStack Swift is not installed (missing ${missing.join(', ')}): apt-get install -y ${swiftPackages.join(' ')} (.ci/run installs them)`,
    );
  }
  const root = mkdtempSync(join(tmpdir(), 'godb-swift-'));
  // As root, the servers drop to the `swift` user, which must be able to reach the folder and own the data.
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? 'swift' : userInfo().username;
  chmodSync(root, 0o755);
  const children: ChildProcess[] = [];
  const end = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Its wrapper stops the server when its input ends (see `start`); the whole group is killed if that hangs.
    child.stdin?.end();
    const timer = setTimeout(() => killGroup(child), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const stop = async () => {
    await Promise.all(children.map(end));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const [proxy, account, container, object, memcached] = (await Promise.all([0, 1, 2, 3, 4].map(freePort))) as [
      number,
      number,
      number,
      number,
      number,
    ];
    const storage = [
      ['account', account],
      ['container', container],
      ['object', object],
    ] as const;
    mkdirSync(join(root, 'etc'));
    mkdirSync(join(root, 'srv', 'd1'), { recursive: true });
    mkdirSync(join(root, 'logs'));
    writeFileSync(
      join(root, 'etc', 'swift.conf'),
      '[swift-hash]\nswift_hash_path_suffix = godb-test\nswift_hash_path_prefix = godb-test\n\n' +
        '[storage-policy:0]\nname = Policy-0\ndefault = yes\n',
    );
    for (const [kind, port] of storage) {
      writeFileSync(join(root, 'etc', `${kind}-server.conf`), storageConf(kind, port, root, user));
    }
    writeFileSync(join(root, 'etc', 'proxy-server.conf'), proxyConf(proxy, memcached, root, user));
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'swift']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'swift']).toString().trim());
      for (const dir of ['srv', join('srv', 'd1')]) chownSync(join(root, dir), uid, gid);
    }
    /**
     * Starts a server behind a shell that stops it when the shell's input ends: when `stop()` closes it, and also
     * when this test process dies without stopping it (its end of the pipe closes), so no Swift outlives a test.
     */
    const start = (name: string, command: string, args: string[]) => {
      const log = openSync(join(root, 'logs', `${name}.log`), 'a');
      const child = spawn(
        '/bin/sh',
        ['-c', '"$@" & server=$!; cat > /dev/null; kill $server 2> /dev/null; wait $server', 'sh', command, ...args],
        { stdio: ['pipe', log, log], detached: true },
      );
      child.once('error', () => undefined);
      children.push(child);
      return child;
    };
    start('memcached', '/usr/bin/memcached', [
      '-l',
      '127.0.0.1',
      '-p',
      String(memcached),
      '-U',
      '0',
      ...(asRoot ? ['-u', user] : []),
    ]);
    // The storage servers start without rings; the proxy loads them, so the rings are built meanwhile, the three
    // in parallel. Each has partition power 0, one replica and one device: a single host.
    for (const [kind] of storage) {
      start(kind, `/usr/bin/swift-${kind}-server`, [join(root, 'etc', `${kind}-server.conf`)]);
    }
    await Promise.all(
      storage.map(async ([kind, port]) => {
        const builder = join(root, 'etc', `${kind}.builder`);
        await run('/usr/bin/swift-ring-builder', [builder, 'create', '0', '1', '1']);
        await run('/usr/bin/swift-ring-builder', [builder, 'add', `r1z1-127.0.0.1:${port}/d1`, '1']);
        // Exit 1 is a warning (the ring is written); 2 is an error.
        await run('/usr/bin/swift-ring-builder', [builder, 'rebalance']).catch((error: { code?: number }) => {
          if (error.code !== 1) throw error;
        });
      }),
    );
    const startProxy = () => start('proxy', '/usr/bin/swift-proxy-server', [join(root, 'etc', 'proxy-server.conf')]);
    let proxyProcess = startProxy();
    const endpoint = `http://127.0.0.1:${proxy}`;
    const client = new S3Client({
      endpoint,
      region,
      forcePathStyle: true,
      credentials: { accessKeyId, secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 1,
    });
    // Ready once every server listens and the S3 API answers a signed request (a bound, not an assertion).
    const ready = async () => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const dead = children.find((c) => c.exitCode !== null && c !== proxyProcess && c.stdin?.writableEnded !== true);
        if (dead) throw new Error(`a Swift process exited with ${dead.exitCode}: ${logsOf(root)}`);
        const up = await Promise.all([proxy, account, container, object, memcached].map(listening));
        if (up.every(Boolean)) {
          const answered = await client.send(new ListBucketsCommand({})).then(
            () => true,
            () => false,
          );
          if (answered) return;
        }
        if (proxyProcess.exitCode !== null) throw new Error(`the Swift proxy exited: ${logsOf(root)}`);
        if (Date.now() > deadline) throw new Error(`Swift did not start within 60 s: ${logsOf(root)}`);
        await sleep(100);
      }
    };
    await ready();
    return {
      endpoint,
      region,
      accessKeyId,
      secretAccessKey,
      client,
      godbEnv: (bucket, extra = {}) => ({
        STORAGE_PROVIDER: 's3',
        S3_ENDPOINT: endpoint,
        S3_REGION: region,
        S3_BUCKET: bucket,
        S3_ACCESS_KEY_ID: accessKeyId,
        S3_SECRET_ACCESS_KEY: secretAccessKey,
        S3_FORCE_PATH_STYLE: 'true',
        ...extra,
      }),
      async createBucket(name) {
        await client.send(new CreateBucketCommand({ Bucket: name }));
      },
      async keys(bucket, prefix = '') {
        const keys: string[] = [];
        let token: string | undefined;
        do {
          const page = await client.send(
            new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
          );
          keys.push(...(page.Contents ?? []).map((o) => o.Key ?? ''));
          token = page.NextContinuationToken;
        } while (token);
        return keys;
      },
      async etag(bucket, key) {
        return client.send(new HeadObjectCommand({ Bucket: bucket, Key: key })).then(
          (head) => head.ETag ?? null,
          () => null,
        );
      },
      async stopProxy() {
        await end(proxyProcess);
      },
      async startProxy() {
        if (proxyProcess.exitCode === null) return;
        proxyProcess = startProxy();
        await ready();
      },
      async stop() {
        client.destroy();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function logsOf(root: string): string {
  return ['memcached', 'account', 'container', 'object', 'proxy']
    .map((name) => {
      const file = join(root, 'logs', `${name}.log`);
      const text = existsSync(file) ? readFileSync(file, 'utf8').trim().slice(-1000) : '';
      return text ? `\n[${name}] ${text}` : '';
    })
    .join('');
}

/** Kills a server's wrapper and everything in its process group. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
