import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { grpcServices, operations } from '../contract/src/index.js';
import { loadConfig } from '../server/src/config/env.js';
import { launchBrowser, screenshot, viewports } from './support/browser.js';
import { freePort, startServerProcess, type ServerProcess } from './support/server-process.js';
import { SmtpPeer } from './support/smtp.js';

const sections = [
  ['introduction', 'Introduction'],
  ['system-architecture', 'System Architecture'],
  ['core-features', 'Core Features'],
  ['technical-implementation', 'Technical Implementation'],
  ['api-reference', 'API Reference'],
  ['grpc-reference', 'gRPC Reference'],
  ['client-libraries', 'Client Libraries'],
  ['performance', 'Performance and Scalability'],
  ['use-cases', 'Use Cases'],
  ['deployment-guide', 'Deployment Guide'],
  ['comparison', 'Comparison with Similar Products'],
] as const;

let server: ServerProcess;
let browser: Browser;
let smtp: SmtpPeer;
let releaseDir: string;

before(async () => {
  const smtpPort = await freePort();
  smtp = new SmtpPeer();
  await smtp.start(smtpPort);
  releaseDir = mkdtempSync(join(tmpdir(), 'godb-e2e-release-'));
  writeFileSync(join(releaseDir, 'godb-0.1.0.tar.gz'), 'release bytes');
  server = await startServerProcess({
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtpPort),
    RELEASE_DIR: releaseDir,
    SIGNED_URL_EXPIRY_S: '3',
  });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  await smtp?.stop();
  rmSync(releaseDir, { recursive: true, force: true });
});

const open = async (path: string, viewport: keyof typeof viewports = 'desktop'): Promise<Page> => {
  const page = await browser.newPage({ viewport: viewports[viewport] });
  await page.goto(`${server.baseUrl}${path}`);
  return page;
};
const heading = (page: Page) => page.locator('#doc-title');

describe('sections', () => {
  test('Introduction by default; every section reachable from the sidebar, deep-linkable, with back and forward', async () => {
    const page = await open('/documentation');
    assert.equal(await heading(page).textContent(), 'Introduction');
    const sidebar = page.getByRole('navigation', { name: 'Documentation sections' });
    assert.deepEqual(
      await sidebar.getByRole('link').allTextContents(),
      sections.map(([, title]) => title),
    );
    for (const [slug, title] of sections) {
      await sidebar.getByRole('link', { name: title, exact: true }).click();
      await page.waitForURL(`**/documentation/${slug}`);
      await page.locator('#doc-title', { hasText: new RegExp(`^${title}$`) }).waitFor();
    }
    await page.goBack();
    await page.waitForURL('**/documentation/deployment-guide');
    await page.locator('#doc-title', { hasText: /^Deployment Guide$/ }).waitFor();
    await page.goForward();
    await page.waitForURL('**/documentation/comparison');
    const shared = await open('/documentation/use-cases');
    await shared.locator('#doc-title', { hasText: /^Use Cases$/ }).waitFor();
    await shared.close();
    await page.close();
  });

  test('the architecture diagram is an SVG and the performance charts are drawn from the benchmark results', async () => {
    const page = await open('/documentation/system-architecture');
    await page.getByRole('img', { name: 'GoDB architecture' }).waitFor();
    await screenshot(page, 'docs-architecture-desktop');
    await page.goto(`${server.baseUrl}/documentation/performance`);
    await page.getByText('nDCG@10 on Cranfield').waitFor();
    await page.locator('canvas').nth(1).waitFor(); // at least two charts
    // Issue #44: text search on whole and chunked documents, side by side.
    await page.getByRole('img', { name: /^GoDB text search on Cranfield by chunking: nDCG@10 and MAP/ }).waitFor();
    // bench:scale's runs, one series per collection size, and what the largest means at 10 and 100 million.
    await page
      .getByRole('img', {
        name: /^Most queries per second, 4 clients, by collection size \(higher is better\): vector \d/,
      })
      .waitFor();
    await page.getByRole('heading', { name: 'What the largest run means at 10 and 100 million' }).waitFor();
    // Issue #39: filtered search with and without field indexes, from bench:filters.
    await page
      .getByRole('img', { name: /^Queries per second by filter, one client, in process \(higher is better\)/ })
      .waitFor();
    // Issue #42: the query pipeline's cases next to hybrid search, from bench:pipeline, named in the intro.
    await page.getByText('bench:pipeline', { exact: true }).first().waitFor();
    await page
      .getByRole('img', { name: /^Query pipeline latency by case, one client, in process: p50 and mean/ })
      .waitFor();
    await screenshot(page, 'docs-performance-desktop');
    await page.close();
  });
});

describe('REST reference', () => {
  test('lists every operation of the contract exactly once', async () => {
    const page = await open('/documentation/api-reference');
    await page.getByLabel('Search endpoints').waitFor();
    const ids = await page.locator('section[id^="op-"]').evaluateAll((els) => els.map((e) => e.id.slice(3)));
    assert.deepEqual([...ids].sort(), operations.map((o) => o.id).sort());
    await screenshot(page, 'docs-api-reference-desktop');
    await page.close();
  });

  test('a regular expression narrows the list; an invalid one filters as text; clear restores', async () => {
    const page = await open('/documentation/api-reference');
    const search = page.getByLabel('Search endpoints');
    await search.fill('^/api/v1/search');
    const paths = await page.locator('section[id^="op-"] header code').allTextContents();
    assert.ok(paths.length > 0);
    for (const path of paths) assert.match(path, /^\/api\/v1\/search/);
    assert.equal(
      paths.length,
      operations.filter(
        (o) => /^\/api\/v1\/search/i.test(o.http.path) || o.http.aliases.some((a) => /^\/api\/v1\/search/i.test(a)),
      ).length,
    );
    await search.fill('(');
    const withParen = await page.locator('section[id^="op-"]').count();
    assert.ok(withParen > 0, 'an invalid expression still filters, as plain text');
    assert.ok(withParen < operations.length);
    await page.getByRole('button', { name: 'Clear' }).click();
    assert.equal(await page.locator('section[id^="op-"]').count(), operations.length);
    await page.close();
  });

  test('clicking a result scrolls to the endpoint and highlights it', async () => {
    const page = await open('/documentation/api-reference');
    await page.getByLabel('Search endpoints').fill('graph/query');
    await page.getByRole('list', { name: 'Matching endpoints' }).getByRole('button').first().click();
    const target = page.locator('#op-graph-query');
    await page.waitForFunction(() => {
      const el = document.getElementById('op-graph-query');
      if (!el) return false;
      const box = el.getBoundingClientRect();
      return box.top >= 0 && box.top < window.innerHeight;
    });
    assert.match((await target.getAttribute('class')) ?? '', /highlighted/);
    await page.close();
  });
});

describe('gRPC reference', () => {
  test('lists the services and searches names, descriptions and messages with the same fallback', async () => {
    const page = await open('/documentation/grpc-reference');
    await page.getByRole('heading', { name: 'SearchService' }).waitFor();
    await page.getByRole('heading', { name: 'AdminService' }).waitFor();
    const search = page.getByLabel('Search services, methods and messages');
    await search.fill('^GetUser$');
    assert.deepEqual(
      await page.locator('[data-rpc]').evaluateAll((els) => els.map((e) => e.getAttribute('data-rpc'))),
      ['GetUser'],
    );
    await search.fill('user_id');
    assert.deepEqual(
      await page.locator('[data-rpc]').evaluateAll((els) => els.map((e) => e.getAttribute('data-rpc'))),
      ['GetUser'],
    );
    await search.fill('TextSearch(');
    assert.deepEqual(
      await page.locator('[data-rpc]').evaluateAll((els) => els.map((e) => e.getAttribute('data-rpc'))),
      ['TextSearch'],
    );
    await search.fill('stream ImportDocumentsRequest');
    assert.deepEqual(
      await page.locator('[data-rpc]').evaluateAll((els) => els.map((e) => e.getAttribute('data-rpc'))),
      ['ImportDocuments'],
    );
    await page.getByRole('button', { name: 'Clear' }).click();
    const rpcs = grpcServices.reduce((n, s) => n + s.methods.length, 0);
    assert.equal(await page.locator('[data-rpc]').count(), rpcs, 'every method of every service, from the contract');
    const tabbed = await open('/documentation/api-reference');
    await tabbed.getByRole('tab', { name: 'gRPC' }).click();
    await tabbed.getByRole('heading', { name: 'SearchService' }).waitFor();
    await tabbed.close();
    await page.close();
  });
});

describe('deployment guide', () => {
  test('the sample configuration equals the server’s defaults', async () => {
    const page = await open('/documentation/deployment-guide');
    for (const text of ['4+ cores', '8GB+ RAM', 'SSD']) await page.getByText(text, { exact: true }).waitFor();
    const sample = (await page.getByLabel('Sample environment configuration').textContent()) ?? '';
    const shown = Object.fromEntries(
      sample
        .split('\n')
        .filter((l) => /^[A-Z0-9_]+=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    const defaults = loadConfig({});
    assert.deepEqual(Object.keys(shown).sort(), Object.keys(defaults).sort());
    for (const [name, value] of Object.entries(defaults)) assert.equal(shown[name], String(value), name);
    const specDefaults: [string, string][] = [
      ['PORT', '8081'],
      ['GRPC_PORT', '50051'],
      ['READ_TIMEOUT_MS', '10000'],
      ['WRITE_TIMEOUT_MS', '10000'],
      ['WORKER_POOL_SIZE', '10'],
      ['QUEUE_SIZE', '100'],
      ['CACHE_SIZE', '1000'],
      ['RATE_LIMIT_RPS', '100'],
      ['RATE_LIMIT_BURST', '50'],
      ['MAX_CONCURRENT_OPERATIONS', '100'],
      ['SIGNED_URL_EXPIRY_S', '3600'],
      ['STORAGE_PROVIDER', 'internal'],
    ];
    for (const [name, value] of specDefaults) assert.equal(shown[name], value, name);
    await screenshot(page, 'docs-deployment-desktop');
    await page.close();
  });

  test('binary request: the dialog, the e-mail, the signed link, and its expiry', async () => {
    const page = await open('/documentation/deployment-guide');
    await page.getByRole('button', { name: 'Request Go DB Binary' }).click();
    const dialog = page.getByRole('dialog', { name: 'Request Go DB Binary' });
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Ada Lovelace');
    await dialog.getByRole('textbox', { name: 'Company', exact: true }).fill('Engines Ltd');
    await dialog.getByRole('textbox', { name: 'Email', exact: true }).fill('ada@example.com');
    await screenshot(page, 'binary-request-dialog');
    await dialog.getByRole('button', { name: 'Request Binary' }).click();
    await dialog.getByText('Request Submitted!').waitFor();
    await dialog.getByText('The link to download binary will be sent via email.').waitFor();
    const mail = await smtp.waitForMessage((m) => m.to === 'ada@example.com');
    const url = /(http:\/\/\S+\/api\/v1\/downloads\/\S+)/.exec(mail.text)?.[1] ?? '';
    const link = url.replace(/^http:\/\/localhost:\d+/, server.baseUrl);
    const download = await fetch(link);
    assert.equal(download.status, 200);
    assert.equal(await download.text(), 'release bytes');
    await new Promise((r) => setTimeout(r, 4500));
    const expired = await browser.newPage();
    const response = await expired.goto(link);
    assert.equal(response?.status(), 403);
    await expired.getByRole('heading', { name: 'This download link cannot be used' }).waitFor();
    await expired.close();
    // Closing resets the form.
    await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();
    await page.getByRole('button', { name: 'Request Go DB Binary' }).click();
    assert.equal(await page.getByRole('dialog').getByRole('textbox', { name: 'Name', exact: true }).inputValue(), '');
    await page.close();
  });
});

test('documentation at phone width', async () => {
  const page = await open('/documentation/api-reference', 'mobile');
  await page.getByLabel('Search endpoints').waitFor();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `${width} px`);
  await screenshot(page, 'docs-api-reference-mobile');
  await page.close();
});
