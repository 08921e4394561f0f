import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { screenshot, viewports } from './support/browser.js';
import { registerAccount } from './support/accounts.js';
import { serverAndBrowser } from './support/playground-site.js';
import { answerCheck } from './support/playground-forms.js';

// Issue #19: the playground creates an API key, shows its secret once with a copy button, lists keys and revokes
// them; the key works against the real server until it is revoked.

const site = serverAndBrowser();
const password = 'correct horse battery';

/** A new account (the admin of its own tenant), logged in to the playground. */
async function loggedInPage(): Promise<{ page: Page; email: string }> {
  const email = `keys-${randomUUID()}@example.com`;
  await registerAccount(site.server.baseUrl, email, password);
  const context = await site.browser.newContext({ viewport: viewports.desktop });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.server.baseUrl });
  const page = await context.newPage();
  await page.goto(`${site.server.baseUrl}/playground`);
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.locator('input[name="password"]').fill(password);
  await answerCheck(page);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await page.getByRole('heading', { name: 'API Endpoints' }).waitFor();
  return { page, email };
}

const listKeysWith = (key: string) =>
  fetch(`${site.server.baseUrl}/api/v1/auth/api-keys`, { headers: { 'api-key': key } });

test('the playground creates a key, shows and copies it once, lists it and revokes it', async () => {
  const { page, email } = await loggedInPage();
  await page.getByRole('button', { name: 'API keys' }).click();
  const dialog = page.getByRole('dialog', { name: 'API keys' });
  await dialog.getByText('No API keys yet.').waitFor();
  // An admin may give a key the user or admin role, never more than their own.
  assert.deepEqual(await dialog.getByLabel('Role').locator('option').allTextContents(), ['user', 'admin']);

  await dialog.getByRole('button', { name: 'Create key' }).click();
  await dialog.getByRole('alert').getByText('Give the key a name, e.g. the program that will use it').waitFor();

  await dialog.getByRole('textbox', { name: 'Name' }).fill('nightly import');
  await dialog.getByLabel('Role').selectOption('admin');
  await dialog.getByLabel('Expires on (optional)').fill('2030-01-01');
  await dialog.getByRole('button', { name: 'Create key' }).click();
  await dialog.getByText('Copy this key now: you will not see it again.').waitFor();
  const key = await dialog.getByRole('textbox', { name: 'New API key' }).inputValue();
  assert.match(key, /^godb_[0-9a-f]{16}_[0-9a-f]{64}$/);

  await dialog.getByRole('button', { name: 'Copy', exact: true }).click();
  await dialog.getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);

  const item = dialog.getByRole('list', { name: 'API keys' }).getByRole('listitem');
  assert.equal(await item.count(), 1);
  const listed = (await item.textContent()) ?? '';
  for (const text of ['nightly import', 'admin', `${key.slice(0, 21)}…`, email, '2030-01-01 00:00 UTC']) {
    assert.ok(listed.includes(text), `${text} in ${listed}`);
  }
  assert.ok(!listed.includes(key.slice(22)), 'the list never shows the secret');
  await screenshot(page, 'playground-api-keys-desktop');

  // The key works against the server, as an admin of this tenant.
  assert.equal((await listKeysWith(key)).status, 200);
  const users = await fetch(`${site.server.baseUrl}/auth/users`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(users.status, 200);

  // Closed and opened again, the secret is gone; the key is still listed, now with its last use.
  await dialog.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'API keys' }).click();
  await dialog.getByRole('list', { name: 'API keys' }).waitFor();
  assert.equal(await dialog.getByRole('textbox', { name: 'New API key' }).count(), 0);
  assert.equal(await dialog.getByText(key).count(), 0);
  assert.ok(!((await item.textContent()) ?? '').includes('Last usedNever'), 'its use is recorded');

  await dialog.getByRole('button', { name: 'Revoke nightly import' }).click();
  await dialog.getByText('No API keys yet.').waitFor();
  const refused = await listKeysWith(key);
  assert.equal(refused.status, 401);
  assert.equal(
    ((await refused.json()) as { error: { message: string } }).error.message,
    'Unauthorized: this API key is unknown, expired or revoked',
  );
  await page.context().close();
});

test('a refused key creation shows the server’s message', async () => {
  const { page } = await loggedInPage();
  await page.getByRole('button', { name: 'API keys' }).click();
  const dialog = page.getByRole('dialog', { name: 'API keys' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('already expired');
  await dialog.getByLabel('Expires on (optional)').fill('2020-01-01');
  await dialog.getByRole('button', { name: 'Create key' }).click();
  await dialog
    .getByRole('alert')
    .getByText(/^expires_at must be in the future: 2020-01-01T00:00:00Z/)
    .waitFor();
  assert.equal(await dialog.getByRole('textbox', { name: 'New API key' }).count(), 0);
  await page.context().close();
});
