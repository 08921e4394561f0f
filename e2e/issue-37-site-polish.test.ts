import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { screenshot, viewports } from './support/browser.js';
import { answerCheck, registerAndSignIn } from './support/playground-forms.js';
import { serverAndBrowser } from './support/playground-site.js';

// Issue #37, what a visitor sees (13 and the e-mail bullet of 11): the Report Issue button and the response box,
// the comparison table at 1280 px, "string" in one piece, the 404 page inside the site's chrome, no HydrateFallback
// warning, the Report Issue dialog starting on the endpoint and the e-mail, and an e-mail the server would refuse
// refused by the forms with the reason beside the field.

const site = serverAndBrowser();
const password = 'correct horse battery';
const walker = 'walker@invalid';
const walkerReason =
  'The domain after the @ needs a dot, as in walker@invalid.com: this server cannot deliver to "invalid".';

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function box(locator: Locator): Promise<Box> {
  const found = await locator.boundingBox();
  assert.ok(found, 'not laid out');
  return found;
}

async function signedIn(
  viewport: { width: number; height: number } = viewports.desktop,
): Promise<{ page: Page; email: string }> {
  const page = await site.browser.newPage({ viewport });
  const email = `polish-${randomUUID()}@example.com`;
  await registerAndSignIn(page, site.server.baseUrl, email, password);
  return { page, email };
}

async function choose(page: Page, name: string) {
  await page.getByRole('button', { name: new RegExp(`^(GET|POST|PUT|PATCH|DELETE) ${name}$`) }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}

/** The text of the browser's alert() that `action` raises. */
async function alertOf(page: Page, action: () => Promise<void>): Promise<string> {
  const message = new Promise<string>((resolve) => page.once('dialog', (d) => (resolve(d.message()), void d.accept())));
  await action();
  return message;
}

describe('issue 37 (13): the playground', () => {
  test('the Report Issue button covers no part of the response box, at the answer and at the page end', async () => {
    for (const viewport of [viewports.desktop, { width: 1280, height: 640 }, viewports.mobile]) {
      const { page } = await signedIn(viewport);
      for (const name of ['List Embedding Models', 'Document Stats']) {
        await choose(page, name);
        await page.getByRole('button', { name: 'Send Request' }).click();
        const response = page.getByTestId('response');
        await page.waitForFunction(
          () => !document.querySelector('[data-testid="response"]')?.textContent?.includes('No request sent yet.'),
        );
        await page.waitForTimeout(300); // the answer's scroll into view
        const button = page.getByRole('button', { name: 'Report Issue' });
        const where = `${name} at ${viewport.width}x${viewport.height}`;
        assert.equal(overlap(await box(response), await box(button)), false, `${where}, as answered`);
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        await page.waitForTimeout(100);
        assert.equal(overlap(await box(response), await box(button)), false, `${where}, at the page end`);
      }
      await screenshot(page, `issue-37-response-and-report-button-${viewport.width}x${viewport.height}`);
      await page.close();
    }
  });

  test('the Report Issue dialog starts on the endpoint being viewed and the signed-in e-mail', async () => {
    const { page, email } = await signedIn();
    await choose(page, 'Hybrid Search');
    await page.getByRole('button', { name: 'Report Issue' }).click();
    const dialog = page.getByRole('dialog', { name: 'Report an Issue' });
    assert.equal(await dialog.locator('select').inputValue(), 'Hybrid Search (POST /api/v1/search/hybrid)');
    assert.equal(await dialog.getByRole('textbox', { name: 'Email' }).inputValue(), email);
    await screenshot(page, 'issue-37-report-issue-preselected');
    await page.close();
  });

  test('an e-mail the server refuses: the Report Issue alert stays, the reason is beside the field', async () => {
    const { page } = await signedIn();
    await choose(page, 'Text Search');
    await page.getByRole('button', { name: 'Report Issue' }).click();
    const dialog = page.getByRole('dialog', { name: 'Report an Issue' });
    await dialog.getByRole('textbox', { name: 'Your Name' }).fill('Walker');
    const email = dialog.getByRole('textbox', { name: 'Email' });
    await email.fill(walker);
    await dialog.getByRole('textbox', { name: 'Issue Description' }).fill('It misses a document.');
    const alert = await alertOf(page, () => dialog.getByRole('button', { name: 'Submit' }).click());
    assert.equal(alert, 'Failed to send issue report. Please try again later.');
    await dialog.getByText(walkerReason).waitFor();
    assert.equal(await email.getAttribute('aria-invalid'), 'true');
    assert.equal(await email.evaluate((el: HTMLInputElement) => el.validity.valid), true, 'the browser accepts it');
    await screenshot(page, 'issue-37-report-issue-email-reason');
    // Corrected, the reason goes.
    await email.fill('walker@example.com');
    assert.equal(await dialog.getByText(walkerReason).count(), 0);
    await page.close();
  });
});

describe('issue 37 (11): the other forms refuse walker@invalid with the reason beside the field', () => {
  test('contact form', async () => {
    const page = await site.browser.newPage({ viewport: viewports.desktop });
    await page.goto(`${site.server.baseUrl}/contact`);
    const form = page.locator('form');
    await form.getByRole('textbox', { name: 'Name' }).fill('Walker');
    await form.getByRole('textbox', { name: 'Email' }).fill(walker);
    await form.getByRole('textbox', { name: 'Phone Number' }).fill('+44 20 7946 0000');
    await form.getByRole('textbox', { name: 'Subject' }).fill('Hello');
    await form.getByRole('textbox', { name: 'Message' }).fill('A message.');
    await form.getByRole('button', { name: 'Send Message' }).click();
    await page
      .getByRole('alert')
      .getByText('Sorry, there was an error sending your message. Please try again.')
      .waitFor();
    await form.getByText(walkerReason).waitFor();
    await screenshot(page, 'issue-37-contact-email-reason');
    await page.close();
  });

  test('login form', async () => {
    const page = await site.browser.newPage({ viewport: viewports.desktop });
    await page.goto(`${site.server.baseUrl}/playground`);
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(walker);
    await page.locator('input[name="password"]').fill(password);
    await answerCheck(page);
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    await page.getByRole('alert').getByText('Login failed').waitFor();
    await page.getByText(walkerReason).waitFor();
    await page.close();
  });
});

describe('issue 37 (13): the site', () => {
  test('the comparison table at 1280 px says it scrolls, and scrolls to its last column', async () => {
    const page = await site.browser.newPage({ viewport: viewports.desktop });
    await page.goto(`${site.server.baseUrl}/documentation/comparison`);
    const region = page.getByRole('region', { name: 'GoDB compared with similar products' });
    await region.waitFor();
    const hint = page.getByTestId('scroll-hint');
    assert.equal(await hint.textContent(), 'Scroll sideways for more columns →');
    await screenshot(page, 'issue-37-comparison-1280');
    const last = region.getByRole('columnheader', { name: 'pgvector' });
    await region.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="scroll-hint"]')?.textContent === '← Scroll back for the first columns',
    );
    const [regionBox, lastBox] = [await box(region), await box(last)];
    assert.ok(lastBox.x + lastBox.width <= regionBox.x + regionBox.width + 1, 'the last column is in view');
    // The row names stay in view beside it.
    const rowName = await box(region.getByRole('rowheader', { name: 'Language' }));
    assert.ok(rowName.x >= regionBox.x - 1, 'the first column stays in view');
    await page.close();
  });

  test('the API reference never breaks a type inside a word ("strin / g")', async () => {
    for (const viewport of [viewports.desktop, viewports.mobile]) {
      const page = await site.browser.newPage({ viewport });
      await page.goto(`${site.server.baseUrl}/documentation/api-reference`);
      await page.locator('section[id^="op-"] tbody tr').first().waitFor();
      const broken = await page.locator('section[id^="op-"] tbody td:nth-child(2)').evaluateAll((cells) =>
        cells
          .filter((td) => {
            const text = (td.textContent ?? '').trim();
            if (text === '' || /\s/.test(text)) return false;
            const range = document.createRange();
            range.selectNodeContents(td);
            return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
          })
          .map((td) => td.textContent),
      );
      assert.deepEqual(broken, [], `${viewport.width} px`);
      await page.close();
    }
  });

  test('an unknown route shows the error page inside the site header and footer', async () => {
    const page = await site.browser.newPage({ viewport: viewports.desktop });
    const answer = await page.goto(`${site.server.baseUrl}/definitely/not/here`);
    assert.equal(answer?.status(), 404);
    await page.getByRole('heading', { name: 'Oops! Something went wrong' }).waitFor();
    await page.getByText('Page not found', { exact: true }).waitFor();
    const header = page.getByRole('banner');
    await header.getByRole('link', { name: 'Documentation' }).waitFor();
    assert.ok(await page.getByRole('contentinfo').isVisible(), 'the footer');
    assert.equal(await page.locator('main').count(), 1, 'one main landmark');
    await screenshot(page, 'issue-37-error-page');
    await page.close();
  });

  test('no page logs React Router’s HydrateFallback warning', async () => {
    const page = await site.browser.newPage({ viewport: viewports.desktop });
    const logged: string[] = [];
    page.on('console', (message) => logged.push(`${message.type()}: ${message.text()}`));
    for (const path of [
      '/',
      '/documentation',
      '/documentation/api-reference',
      '/whitepaper',
      '/contact',
      '/privacy-policy',
      '/playground',
      '/no-such-page',
      '/documentation/no-such-section',
    ]) {
      await page.goto(`${site.server.baseUrl}${path}`);
      await page.locator('h1').first().waitFor();
    }
    assert.deepEqual(
      logged.filter((line) => /HydrateFallback/.test(line)),
      [],
    );
    await page.close();
  });
});
