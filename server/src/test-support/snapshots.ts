import { after, before, describe } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './server.js';
import { startSwift, type SwiftS3 } from './swift.js';

/** Where snapshots are kept in a test: DATA_DIR/snapshots, or a bucket of a real OpenStack Swift (started lazily). */
export interface SnapshotProvider {
  name: string;
  s3: boolean;
  /** GoDB's settings for this provider, with glove-100 as the default model. */
  env(): Promise<Record<string, string>>;
}

/** A provider's describe block's shared server, see `snapshotSuite().eachProvider`. */
export interface ProviderRun {
  env: Record<string, string>;
  server: TestServer;
  closeAfter(other: TestServer): TestServer;
}

/**
 * A snapshot test file's set-up, registered as its file-level hooks: the `internal` and `s3` providers (the Swift of
 * `s3` started only when its env is asked for, keys under `<name>-test/` in bucket `godb`), and a scratch folder for
 * archives and data folders, removed with the Swift at the end.
 *
 * @example const suite = snapshotSuite('snapshots'); suite.eachProvider('issue 18: snapshots', (provider, run) => …);
 */
export function snapshotSuite(name: string) {
  const prefix = `${name}-test/`;
  let swift: SwiftS3 | null = null;
  let work = '';
  before(() => {
    work = mkdtempSync(join(tmpdir(), `godb-${name}-`));
  });
  after(async () => {
    await swift?.stop();
    rmSync(work, { recursive: true, force: true });
  });
  const providers: SnapshotProvider[] = [
    { name: 'internal', s3: false, env: async () => ({ DEFAULT_EMBEDDING_MODEL: 'glove-100' }) },
    {
      name: 's3 (OpenStack Swift)',
      s3: true,
      async env() {
        swift = await startSwift();
        await swift.createBucket('godb');
        return swift.godbEnv('godb', { S3_PREFIX: prefix, DEFAULT_EMBEDDING_MODEL: 'glove-100' });
      },
    },
  ];
  /**
   * A describe block per provider, titled `<title> with the <provider> provider`, whose tests share one server on
   * the provider's settings (`run.server`, `run.env`, set once its `before` hook ran); a server a test starts besides
   * is handed to `run.closeAfter()` and closed with it.
   */
  const eachProvider = (title: string, define: (provider: SnapshotProvider, run: ProviderRun) => void) => {
    for (const provider of providers) {
      describe(`${title} with the ${provider.name} provider`, () => {
        const others: TestServer[] = [];
        const run = {
          closeAfter(other: TestServer) {
            others.push(other);
            return other;
          },
        } as ProviderRun;
        before(async () => {
          run.env = await provider.env();
          run.server = await startTestServer(run.env);
        });
        after(async () => {
          for (const other of others) await other.close();
          await run.server?.close();
        });
        define(provider, run);
      });
    }
  };
  return {
    eachProvider,
    /** Where `s3` keeps its keys in the bucket. */
    prefix,
    /** The Swift of `s3`, once its env was asked for. */
    swift: () => swift,
    /** A path in the scratch folder. */
    scratch: (file: string) => join(work, file),
  };
}

/** A copy of an archive with its middle byte flipped: damage its checksums must catch. */
export function damaged(archive: Buffer): Buffer {
  const copy = Buffer.from(archive);
  const at = Math.floor(copy.length / 2);
  copy[at] = copy[at]! ^ 0xff;
  return copy;
}

/** A stand-in for stdout or stderr that keeps what `godb restore` writes. */
export const capture = () => ({
  text: '',
  write(text: string) {
    this.text += text;
    return true;
  },
});
