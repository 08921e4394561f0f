import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { screenshot, viewports } from './support/browser.js';
import { signUp } from './support/accounts.js';
import { serverAndBrowser } from './support/playground-site.js';

// Issue #20, the website's share of 12, 14 and 15: claims and links that are true, the 390 px layout, and polish.

const site = serverAndBrowser();
const password = 'correct horse battery';

async function open(path: string, viewport: { width: number; height: number } = viewports.desktop): Promise<Page> {
  const page = await site.browser.newPage({ viewport });
  await page.goto(`${site.server.baseUrl}${path}`);
  await page.locator('h1').first().waitFor();
  return page;
}

function overlap(a: { x: number; y: number; width: number; height: number }, b: typeof a): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Lines the text of an element is laid out on. */
const lineCount = (el: Locator) =>
  el.evaluate((node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  });

describe('issue 20 (12): claims and links match the product', () => {
  test('with no repository or social address configured, the site shows no external link', async () => {
    if (process.env.VITE_REPOSITORY_URL || process.env.VITE_SOCIAL_X_URL || process.env.VITE_SOCIAL_LINKEDIN_URL) {
      return; // a build with configured addresses shows them
    }
    for (const path of ['/', '/contact', '/documentation']) {
      const page = await open(path);
      const external = await page
        .locator('a[href^="http"]')
        .evaluateAll((links) =>
          links.map((a) => (a as HTMLAnchorElement).href).filter((href) => !href.startsWith(location.origin)),
        );
      assert.deepEqual(external, [], path);
      await page.getByRole('contentinfo').getByRole('heading', { name: 'Community' }).waitFor();
      await page.close();
    }
  });

  test('the whitepaper says gRPC is served, that GoDB is a single node by default and cluster mode a preview', async () => {
    const page = await open('/whitepaper');
    const text = (await page.locator('main').textContent()) ?? '';
    assert.doesNotMatch(text, /as it lands/);
    assert.match(text, /gRPC API on port 50051/);
    assert.match(text, /By default GoDB runs as a single node/);
    assert.match(text, /cluster mode on NATS JetStream, in preview/);
    await page.close();
  });
});

describe('issue 20 (15): polish', () => {
  test('each page has its own title', async () => {
    const titles = new Map<string, string>();
    for (const path of [
      '/',
      '/documentation',
      '/documentation/api-reference',
      '/whitepaper',
      '/contact',
      '/privacy-policy',
      '/terms-of-service',
      '/playground',
      '/no-such-page',
    ]) {
      const page = await open(path);
      await page.waitForFunction(() => document.title.includes('GoDB'));
      titles.set(path, await page.title());
      await page.close();
    }
    assert.equal(new Set(titles.values()).size, titles.size, JSON.stringify([...titles]));
    assert.equal(titles.get('/whitepaper'), 'Whitepaper — GoDB');
  });

  test('the reference marks no field with a default as required (issue 20, 10)', async () => {
    const page = await open('/documentation/api-reference');
    await page.locator('table').first().waitFor();
    const rows = await page
      .locator('section[id^="op-"] tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    const withDefault = rows.filter((cells) => cells.length === 5 && cells[3] !== '');
    assert.ok(withDefault.length > 20);
    assert.deepEqual(
      withDefault.filter((cells) => cells[2] !== 'no').map((cells) => cells[0]),
      [],
    );
    await page.close();
  });

  test('an unknown documentation section shows the error page', async () => {
    const page = await open('/documentation/no-such-section');
    await page.getByRole('heading', { name: 'Oops! Something went wrong' }).waitFor();
    await page.getByText('Page not found').waitFor();
    await page.getByRole('link', { name: 'Return to Home' }).waitFor();
    await page.close();
  });

  test('Escape closes the mobile menu and gives focus back to its toggle', async () => {
    const page = await open('/', viewports.mobile);
    await page.getByRole('button', { name: 'Open menu' }).click();
    const menu = page.getByRole('navigation', { name: 'Main' }).last();
    await menu.getByRole('link', { name: 'Contact' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Open menu' }).waitFor();
    assert.equal(await page.locator('[aria-expanded="true"]').count(), 0);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Open menu');
    await page.close();
  });

  test("the references' Clear keeps focus in the search box; gRPC signatures keep their case", async () => {
    const page = await open('/documentation/api-reference');
    const search = page.locator('#rest-search');
    await search.fill('POST');
    await page.getByRole('button', { name: 'Clear' }).click();
    assert.equal(await search.inputValue(), '');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'rest-search');

    await page.getByRole('tab', { name: 'gRPC' }).click();
    const grpc = page.locator('#grpc-search');
    await grpc.fill('Search');
    await page.getByRole('button', { name: 'Clear' }).click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'grpc-search');
    const signature = page.locator('[data-rpc] h4').first();
    // innerText is the text as rendered, after any text-transform.
    assert.match(await signature.evaluate((el) => (el as HTMLElement).innerText), /^rpc [A-Z][a-z]+\w*\(\w+\) returns/);
    await page.close();
  });
});

describe('issue 20 (14): the 390 px layout', () => {
  test('the Report Issue button never covers a focused input; the endpoint list is no scroll box', async () => {
    const email = `mobile-${randomUUID()}@example.com`;
    const token = await signUp(site.server.baseUrl, email, password);
    const page = await site.browser.newPage({ viewport: viewports.mobile });
    await page.goto(`${site.server.baseUrl}/playground`);
    await page.evaluate((t) => localStorage.setItem('authToken', t), token);
    await page.reload();
    await page.getByRole('heading', { name: 'API Endpoints' }).waitFor();

    const sidebar = page.locator('aside');
    const scrollBox = await sidebar.evaluate((el) => el.scrollHeight > el.clientHeight + 1);
    assert.equal(scrollBox, false, 'the endpoint list scrolls inside the page');

    for (const name of ['Add Document', 'Vector Search', 'Update ACL']) {
      await page.getByRole('button', { name: new RegExp(`^(GET|POST|PUT|PATCH|DELETE) ${name}$`) }).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      for (const control of await page
        .locator('main form input:not([type=file]), main form textarea, main form select')
        .all()) {
        await control.focus();
        const button = page.getByRole('button', { name: 'Report Issue' });
        const box = await control.boundingBox();
        const buttonBox = (await button.isVisible()) ? await button.boundingBox() : null;
        if (box && buttonBox) {
          assert.equal(overlap(box, buttonBox), false, `${name}: ${await control.getAttribute('name')}`);
        }
      }
    }
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.getByRole('button', { name: 'Report Issue' }).waitFor();
    await screenshot(page, 'issue-20-playground-mobile');
    await page.close();
  });

  test('reference table headers do not wrap mid-word', async () => {
    const page = await open('/documentation/api-reference', viewports.mobile);
    const headers = page.locator('table th');
    await headers.first().waitFor();
    const count = Math.min(await headers.count(), 60);
    for (let i = 0; i < count; i++) {
      const th = headers.nth(i);
      const words = ((await th.textContent()) ?? '').trim().split(/\s+/).length;
      assert.ok((await lineCount(th)) <= words, `"${await th.textContent()}" is broken over more lines than words`);
    }
    await screenshot(page, 'issue-20-reference-mobile');
    await page.close();
  });
});
