import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Page, Request } from 'playwright-core';
import { viewports } from './support/browser.js';
import { registerAccount } from './support/accounts.js';
import { serverAndBrowser } from './support/playground-site.js';
import { answerCheck } from './support/playground-forms.js';

// Issue #20, the playground's share: random logouts (1), selects that send nothing (2), login mode creating
// tenants (4), and the form polish of 15 (placeholders, required marks, the read-only tenant id).

const site = serverAndBrowser();
const password = 'correct horse battery';

const registerUser = (email: string) => registerAccount(site.server.baseUrl, email, password);

async function fillLogin(page: Page, email: string) {
  await page.goto(`${site.server.baseUrl}/playground`);
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.locator('input[name="password"]').fill(password);
  await answerCheck(page);
}

async function logIn(page: Page, email: string) {
  await fillLogin(page, email);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await page.getByRole('heading', { name: 'API Endpoints' }).waitFor();
}

/** A new user, registered and logged in on a desktop-sized page. */
async function loggedInPage(prefix: string): Promise<Page> {
  const email = `${prefix}-${randomUUID()}@example.com`;
  await registerUser(email);
  const page = await site.browser.newPage({ viewport: viewports.desktop });
  await logIn(page, email);
  return page;
}

/** Opens each endpoint of the playground in turn, yielding its label. */
async function* eachEndpoint(page: Page): AsyncGenerator<string> {
  const endpoints = page.locator('aside button[aria-pressed]');
  const count = await endpoints.count();
  assert.ok(count > 20);
  for (let i = 0; i < count; i++) {
    const label = (await endpoints.nth(i).textContent()) ?? '';
    await endpoints.nth(i).click();
    yield label;
  }
}

async function choose(page: Page, name: string) {
  await page.getByRole('button', { name: new RegExp(`^(GET|POST|PUT|PATCH|DELETE) ${name}$`) }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}

async function send(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Send Request' }).click();
  await page.getByRole('button', { name: 'Send Request' }).waitFor();
  return (await page.getByTestId('response').textContent()) ?? '';
}

describe('issue 20: the session ends on a 401 answer, not on "401" in a text', () => {
  test('getting document report-401 (a 404) keeps the visitor logged in', async () => {
    const page = await loggedInPage('r401');
    await choose(page, 'Get Document');
    await page.locator('#field-id').fill('report-401');
    const text = await send(page);
    assert.match(text, /^API Error: 404 Not Found/);
    assert.match(text, /report-401/);
    assert.ok(await page.getByRole('heading', { name: 'API Endpoints' }).isVisible());
    assert.notEqual(await page.evaluate(() => localStorage.getItem('authToken')), null);
    await page.close();
  });

  test('a token the server rejects (401) logs out with the session message', async () => {
    const page = await loggedInPage('real401');
    // A well-formed token with a forged signature: the server answers 401 UNAUTHORIZED.
    const token = (await page.evaluate(() => localStorage.getItem('authToken'))) ?? '';
    await page.evaluate(
      (t) => localStorage.setItem('authToken', t),
      `${token.slice(0, token.lastIndexOf('.'))}.forged`,
    );
    await page.reload();
    await choose(page, 'Get Document');
    await page.locator('#field-id').fill('anything');
    await page.getByRole('button', { name: 'Send Request' }).click();
    await page.getByText('Session expired. Please login again.').waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem('authToken')), null);
    await page.close();
  });
});

describe('issue 20: every select sends what it displays', () => {
  test('Update ACL sent without touching the Operation select sends "add"', async () => {
    const page = await loggedInPage('acl');
    const token = (await page.evaluate(() => localStorage.getItem('authToken'))) ?? '';
    const created = await fetch(`${site.server.baseUrl}/api/v1/documents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ id: 'acl-doc', title: 'ACL target', content: 'Shared with a colleague.' }),
    });
    assert.ok(created.ok, await created.text());

    await choose(page, 'Update ACL');
    const select = page.locator('#field-operation');
    const shown = await select.evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.textContent ?? '');
    assert.equal(shown, 'add');
    await page.locator('#field-id').fill('acl-doc');
    await page.locator('#field-acl').fill(JSON.stringify([{ user_id: randomUUID(), role: 'view' }]));
    const request = page.waitForRequest((r) => r.url().endsWith('/api/v1/documents/acl-doc/acl'));
    const text = await send(page);
    const body = (await request).postDataJSON() as { operation?: string };
    assert.equal(body.operation, shown);
    assert.doesNotMatch(text, /Operation is required|body\.operation/);
    await page.close();
  });

  test('no playground select shows an option it would not send', async () => {
    const page = await loggedInPage('selects');
    for await (const label of eachEndpoint(page)) {
      for (const select of await page.locator('main form select').all()) {
        const [value, shown] = await select.evaluate((el: HTMLSelectElement) => [
          el.value,
          el.selectedOptions[0]?.value ?? null,
        ]);
        assert.equal(shown, value, `${label}: ${await select.getAttribute('name')}`);
      }
    }
    await page.close();
  });
});

describe('issue 20: a login-mode register call cannot create a tenant', () => {
  test('the register request of the login action carries no tenant_id; a typo ends in "Invalid email or password"', async (t) => {
    const email = `login-${randomUUID()}@example.com`;
    await registerUser(email);
    const page = await site.browser.newPage({ viewport: viewports.desktop });
    const consoleErrors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    const registers: Request[] = [];
    page.on('request', (r) => r.url().endsWith('/auth/register') && registers.push(r));

    await fillLogin(page, email);
    const answered = page.waitForResponse((r) => r.url().endsWith('/auth/register'));
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    const registerStatus = (await answered).status();
    await page.getByRole('heading', { name: 'API Endpoints' }).waitFor();
    assert.equal(registers.length, 1);
    const body = registers[0]?.postDataJSON() as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['email', 'password']);
    // The server's side (a register call without tenant_id answers 200 and creates nothing) lands separately;
    // until it does, the call answers 400 and the browser logs it, so this check waits for it.
    if (registerStatus === 200) assert.deepEqual(consoleErrors, []);
    else t.diagnostic(`register without tenant_id answered ${registerStatus}: the server part of issue 20 is pending`);

    await page.getByRole('button', { name: 'Logout' }).click();
    await fillLogin(page, `typo-${email}`);
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    await page.getByText('Invalid email or password').waitFor();
    // The typo created no account: the same e-mail still cannot log in over the API.
    const login = await fetch(`${site.server.baseUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `typo-${email}`, password }),
    });
    assert.equal(login.status, 401);
    await page.close();
  });
});

describe('issue 20: the forms say what they want', () => {
  test('every playground field has a placeholder', async () => {
    const page = await loggedInPage('ph');
    for await (const label of eachEndpoint(page)) {
      for (const control of await page.locator('main form input:not([type=file]), main form textarea').all()) {
        const placeholder = (await control.getAttribute('placeholder')) ?? '';
        assert.notEqual(placeholder.trim(), '', `${label}: ${await control.getAttribute('name')}`);
      }
    }
    await page.close();
  });

  test('Register mode marks Name and Company required; the tenant id looks read-only', async () => {
    const page = await site.browser.newPage({ viewport: viewports.desktop });
    await page.goto(`${site.server.baseUrl}/playground`);
    await page.getByRole('tab', { name: 'Register' }).click();
    for (const name of ['Name', 'Company']) {
      const input = page.getByRole('textbox', { name, exact: true });
      assert.equal(await input.getAttribute('aria-required'), 'true');
      const label = await page.locator(`label[for="${await input.getAttribute('id')}"]`).textContent();
      assert.match(label ?? '', /\*$/);
    }
    const tenant = page.getByRole('textbox', { name: 'Tenant ID' });
    const email = page.getByRole('textbox', { name: 'Email', exact: true });
    const look = (el: HTMLElement) => {
      const style = getComputedStyle(el);
      return [style.backgroundColor, style.borderStyle];
    };
    assert.notDeepEqual(await tenant.evaluate(look), await email.evaluate(look));
    for (const control of await page.locator('form input:not([readonly])').all()) {
      assert.notEqual(((await control.getAttribute('placeholder')) ?? '').trim(), '');
    }
    // The specification's own message for a missing name still appears (no browser check stands in front).
    await email.fill('x@example.com');
    await page.locator('input[name="password"]').fill('password-1');
    await page.locator('input[name="confirm"]').fill('password-1');
    await answerCheck(page);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByText('Name and Company are required for registration').waitFor();
    await page.close();
  });
});
