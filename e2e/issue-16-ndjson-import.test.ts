import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startPlaygroundSite, type PlaygroundSite } from './support/playground-site.js';
import { registerAndSignIn } from './support/playground-forms.js';

// Issue #16: the playground imports an NDJSON file: it is sent as the body with an upload progress bar, and the
// answer (one line per document) is shown as it came, bad lines with their line number and field.

let site: PlaygroundSite;
const password = 'correct horse battery';

before(async () => {
  site = await startPlaygroundSite('godb-ndjson-');
});
after(() => site?.stop());

const signIn = (page: Page, email: string) => registerAndSignIn(page, site.server.baseUrl, email, password);

test('the playground uploads an NDJSON file with a progress bar and shows the answer line by line', async () => {
  const page = await site.browser.newPage();
  await signIn(page, `ndjson-${randomUUID()}@example.com`);
  const name = 'Import Documents (NDJSON)';
  await page.getByRole('button', { name: `POST ${name}` }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();

  await page.getByRole('button', { name: 'Send Request' }).click();
  await page.getByText('Choose an NDJSON file to import (one document per line)').waitFor();

  const file = join(site.workDir, 'docs.ndjson');
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
