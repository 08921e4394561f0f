import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startPlaygroundSite, type PlaygroundSite } from './support/playground-site.js';
import { registerAndSignIn } from './support/playground-forms.js';

// Issue #21 (the web's data layer): every playground request is built from the contract, so the snapshot
// operations work with no web code of their own: a snapshot's job shows its progress until done, its archive
// downloads as a file, and the same file uploads back with a progress bar. A refused check keeps what was typed.

let site: PlaygroundSite;
const password = 'correct horse battery';

before(async () => {
  site = await startPlaygroundSite('godb-issue-21-web-');
});
after(() => site?.stop());

const open = async (page: Page, method: string, name: string) => {
  await page.getByRole('button', { name: `${method} ${name}`, exact: true }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
};
const answer = async (page: Page) => (await page.getByTestId('response').textContent()) ?? '';
const send = async (page: Page, expect: RegExp) => {
  await page.getByRole('button', { name: 'Send Request' }).click();
  await page.getByTestId('response').getByText(expect).waitFor({ timeout: 120_000 });
};

test('snapshots from the catalogue: the job’s progress, the archive downloaded, then uploaded back', async () => {
  const page = await site.browser.newPage({ acceptDownloads: true });
  await registerAndSignIn(page, site.server.baseUrl, `snapshots-${randomUUID()}@example.com`, password);

  await open(page, 'POST', 'Create Snapshot');
  await send(page, /"job_id"/);
  const created = JSON.parse(await answer(page)) as { snapshot_id: string; job_id: string };
  const job = page.getByRole('region', { name: `Job ${created.job_id}` });
  await job.getByText('done').waitFor({ timeout: 120_000 });
  assert.equal(await job.getByRole('progressbar').getAttribute('value'), '100');

  await open(page, 'GET', 'Download Snapshot');
  await page.locator('#field-id').fill(created.snapshot_id);
  await send(page, new RegExp(`^File ${created.snapshot_id}\\.tar: [\\d,]+ bytes`));
  const saving = page.waitForEvent('download');
  await page.getByRole('link', { name: `Save ${created.snapshot_id}.tar` }).click();
  const archive = join(site.workDir, `${created.snapshot_id}.tar`);
  await (await saving).saveAs(archive);
  assert.ok(statSync(archive).size > 0);

  await open(page, 'DELETE', 'Delete Snapshot');
  await page.locator('#field-id').fill(created.snapshot_id);
  await send(page, /"success": true/);

  await open(page, 'POST', 'Upload Snapshot');
  await page.getByRole('button', { name: 'Send Request' }).click();
  await page.getByTestId('response').getByText('Choose a snapshot archive (.tar) to upload').waitFor();
  await page.locator('#field-file').setInputFiles(archive);
  await send(page, new RegExp(`"snapshot_id": "${created.snapshot_id}"`));
  const bar = page.getByRole('progressbar');
  assert.equal(await bar.getAttribute('value'), await bar.getAttribute('max'));
  await page.close();
});

test('a refused check or server answer keeps what the visitor typed', async () => {
  const page = await site.browser.newPage();
  await registerAndSignIn(page, site.server.baseUrl, `typed-${randomUUID()}@example.com`, password);
  await open(page, 'POST', 'Text Search');
  await page.locator('#field-query').fill('   ');
  await page.locator('#field-limit').fill('7');
  await page.getByRole('button', { name: 'Send Request' }).click();
  await page.getByTestId('response').getByText("query parameter 'query' is required").waitFor();
  assert.equal(await page.locator('#field-limit').inputValue(), '7');

  await open(page, 'GET', 'Get Document');
  await page.locator('#field-id').fill('no-such-document');
  await send(page, /^API Error: 404 Not Found/);
  assert.equal(await page.locator('#field-id').inputValue(), 'no-such-document');
  await page.close();
});
