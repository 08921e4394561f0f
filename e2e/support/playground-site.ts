import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser } from './browser.js';
import { freePort, startServerProcess, type ServerProcess } from './server-process.js';
import { SmtpPeer } from './smtp.js';

/** What a playground browser test runs against: a real server, its mail peer, a browser and a scratch folder. */
export interface PlaygroundSite {
  readonly server: ServerProcess;
  readonly browser: Browser;
  readonly smtp: SmtpPeer;
  readonly workDir: string;
  /** Closes the browser, stops the server and the mail peer, removes the scratch folder. */
  readonly stop: () => Promise<void>;
}

/**
 * Starts a real server whose mail goes to a local SMTP peer (registration notices, issue reports), with rate
 * limits a browser test never meets and the shared model cache, and a browser.
 *
 * @example const site = await startPlaygroundSite('godb-playground-'); … await site.stop();
 */
export async function startPlaygroundSite(prefix: string): Promise<PlaygroundSite> {
  const smtpPort = await freePort();
  const smtp = new SmtpPeer();
  await smtp.start(smtpPort);
  const workDir = mkdtempSync(join(tmpdir(), prefix));
  const server = await startServerProcess({
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtpPort),
    MAIL_TEAM_ADDRESS: 'team@godb.test',
    RATE_LIMIT_RPS: '1000',
    RATE_LIMIT_BURST: '1000',
    MODEL_CACHE_DIR: join(tmpdir(), 'godb-test-model-cache'),
  });
  const browser = await launchBrowser();
  const stop = async () => {
    await browser.close();
    await server.stop();
    await smtp.stop();
    rmSync(workDir, { recursive: true, force: true });
  };
  return { server, browser, smtp, workDir, stop };
}

/** A real server and a browser, started before a test file's tests and stopped after them. */
export interface ServerAndBrowser {
  readonly server: ServerProcess;
  readonly browser: Browser;
}

/**
 * Registers the file's `before` and `after` hooks that start a real server (rate limits a browser test never
 * meets, plus `env`) and a browser, and stop them; the answer's fields are the running ones inside the tests.
 *
 * @example const site = serverAndBrowser(); test('…', async () => { await site.browser.newPage(); });
 */
export function serverAndBrowser(env: Record<string, string> = {}): ServerAndBrowser {
  let server: ServerProcess | undefined;
  let browser: Browser | undefined;
  before(async () => {
    server = await startServerProcess({ RATE_LIMIT_RPS: '1000', RATE_LIMIT_BURST: '1000', ...env });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new TypeError('serverAndBrowser: used outside the tests of its file');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get browser() {
      return started(browser);
    },
  };
}
