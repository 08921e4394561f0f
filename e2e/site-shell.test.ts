import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser, screenshot, viewports } from './support/browser.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

let server: ServerProcess;
let browser: Browser;

before(async () => {
  server = await startServerProcess();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test('an unknown route shows the error page with "Page not found" and a way home', async () => {
  const page = await browser.newPage({ viewport: viewports.desktop });
  const response = await page.goto(`${server.baseUrl}/definitely/not/here`);
  assert.equal(response?.status(), 404);
  await page.getByRole('heading', { name: 'Oops! Something went wrong' }).waitFor();
  assert.ok(await page.getByText('Page not found').isVisible());
  await screenshot(page, 'error-page-desktop');
  await page.getByRole('link', { name: 'Return to Home' }).click();
  await page.getByRole('heading', { name: 'The Unified Intelligent Data Platform' }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/');
  await page.close();
});

test('every site route renders inside the shared chrome with the beta banner', async () => {
  const page = await browser.newPage({ viewport: viewports.desktop });
  for (const path of ['/', '/privacy-policy', '/terms-of-service']) {
    await page.goto(`${server.baseUrl}${path}`);
    await page.getByText('Beta Release - Try out the future of vector databases').waitFor();
    assert.ok(
      await page
        .getByRole('contentinfo')
        .getByText(/© 2025/)
        .isVisible(),
      path,
    );
  }
  await page.close();
});
