import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from './support/browser.js';
import { freePort, startServerProcess, type ServerProcess } from './support/server-process.js';
import { registerAndSignIn } from './support/playground-forms.js';
import { SmtpPeer } from './support/smtp.js';

// Issue #16: the playground imports an NDJSON file: it is sent as the body with an upload progress bar, and the
// answer (one line per document) is shown as it came, bad lines with their line number and field.

let server: ServerProcess;
let browser: Browser;
let smtp: SmtpPeer;
let workDir: string;
const password = 'correct horse battery';

before(async () => {
  const smtpPort = await freePort();
  smtp = new SmtpPeer();
  await smtp.start(smtpPort);
  workDir = mkdtempSync(join(tmpdir(), 'godb-ndjson-'));
  server = await startServerProcess({
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtpPort),
    MAIL_TEAM_ADDRESS: 'team@godb.test',
    RATE_LIMIT_RPS: '1000',
    RATE_LIMIT_BURST: '1000',
    MODEL_CACHE_DIR: join(tmpdir(), 'godb-test-model-cache'),
  });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  await smtp?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const signIn = (page: Page, email: string) => registerAndSignIn(page, server.baseUrl, email, password);

test('the playground uploads an NDJSON file with a progress bar and shows the answer line by line', async () => {
  const page = await browser.newPage();
  await signIn(page, `ndjson-${randomUUID()}@example.com`);
  const name = 'Import Documents (NDJSON)';
  await page.getByRole('button', { name: `POST ${name}` }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();

  await page.getByRole('button', { name: 'Send Request' }).click();
  await page.getByText('Choose an NDJSON file to import (one document per line)').waitFor();

  const file = join(workDir, 'docs.ndjson');
  writeFileSync(
    file,
    [
      JSON.stringify({ id: 'p1', title: 'First', content: 'Vector databases store embeddings.' }),
      JSON.stringify({ id: 'p2', title: 7 }),
      JSON.stringify({ id: 'p3', title: 'Third', content: 'BM25 ranks documents by term statistics.' }),
    ].join('\n'),
  );
  await page.locator('#field-file').setInputFiles(file);
  await page.getByRole('button', { name: 'Send Request' }).click();
  await page.getByTestId('response').getByText('"line":3').waitFor({ timeout: 120_000 });
  const lines = ((await page.getByTestId('response').textContent()) ?? '')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { line: number; success: boolean; error?: { field?: string } });
  assert.deepEqual(
    lines.map((l) => [l.line, l.success, l.error?.field]),
    [
      [1, true, undefined],
      [2, false, 'line[2].title'],
      [3, true, undefined],
    ],
  );
  const bar = page.getByRole('progressbar');
  assert.equal(await bar.getAttribute('value'), await bar.getAttribute('max'));
  await page.close();
});
