// npm run bench:web — the home page in Debian's Chromium: JavaScript loaded (gzip size), Largest Contentful Paint
// and Cumulative Layout Shift; the documentation page's JavaScript for comparison.
import { gzipSync } from 'node:zlib';
import { launchBrowser } from '../e2e/support/browser.js';
import { startServerProcess } from '../e2e/support/server-process.js';
import { caveat, saveResults, table } from './support.js';

caveat();
const server = await startServerProcess();
const browser = await launchBrowser();
const rows: Record<string, string | number>[] = [];

async function measure(path: string, label: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  let jsRaw = 0;
  let jsGzip = 0;
  page.on('response', async (response) => {
    if (!response.url().endsWith('.js')) return;
    const body = await response.body().catch(() => Buffer.alloc(0));
    jsRaw += body.length;
    jsGzip += gzipSync(body, { level: 9 }).length;
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __lcp: number; __cls: number };
    w.__lcp = 0;
    w.__cls = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) w.__lcp = entry.startTime;
    }).observe({ type: 'largest-contentful-paint', buffered: true });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
        if (!entry.hadRecentInput) w.__cls += entry.value;
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
  await page.goto(`${server.baseUrl}${path}`, { waitUntil: 'networkidle' });
  await page.waitForTimeout(500);
  const { lcp, cls } = await page.evaluate(() => {
    const w = window as unknown as { __lcp: number; __cls: number };
    return { lcp: w.__lcp, cls: w.__cls };
  });
  rows.push({
    page: label,
    'JS raw KB': (jsRaw / 1024).toFixed(1),
    'JS gzip KB': (jsGzip / 1024).toFixed(1),
    'LCP ms': Math.round(lcp),
    CLS: cls.toFixed(4),
  });
  await page.close();
}

await measure('/', 'home');
await measure('/documentation/api-reference', 'documentation (API reference)');
await measure('/playground', 'playground (sign-in)');
table(rows);
const home = rows[0]!;
process.stdout.write(
  `\nHome: ${home['JS gzip KB']} KB of JavaScript gzipped (goal ≤ 150), CLS ${home.CLS} (goal 0), LCP ${home['LCP ms']} ms on loopback.\n`,
);
saveResults('web', rows);
await browser.close();
await server.stop();
