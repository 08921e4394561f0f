import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repoRoot } from './server-process.js';

export const chromiumPath = '/usr/bin/chromium';

/** Debian's Chromium, headless, with the flags this machine's closed network needs. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`${chromiumPath} is missing: install it with "apt-get install -y chromium" (.ci/run does).`);
  }
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

export const viewports = {
  desktop: { width: 1280, height: 800 },
  mobile: { width: 390, height: 844 },
} as const;

/** Saves a screenshot under e2e/screenshots/ for a human to look at. */
/** The tallest picture a screenshot takes, in CSS pixels. */
const maxShotHeight = 12_000;

export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = join(repoRoot, 'e2e', 'screenshots');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.png`);
  // Scroll through the page so scroll-in animations run, as they would for a reader, then come back up.
  await page.evaluate(async () => {
    for (let y = 0; y < document.body.scrollHeight; y += window.innerHeight / 2) {
      window.scrollTo(0, y);
      await new Promise((r) => setTimeout(r, 60));
    }
    window.scrollTo(0, 0);
  });
  await page.waitForTimeout(900);
  // The API reference is tens of thousands of pixels tall: on a machine busy with other suites, capturing it takes
  // longer than Playwright's default 30 s, and a screenshot for people to look at is no reason to fail a test.
  // Past ~16,000 px Chromium composes a full-page capture in tiles, which took over 120 s for the mobile API
  // reference: pictures of such pages show their first screens, enough to look at the layout.
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  const width = page.viewportSize()?.width ?? 1280;
  const clip = height > maxShotHeight ? { x: 0, y: 0, width, height: maxShotHeight } : undefined;
  await page.screenshot({ path: file, fullPage: true, timeout: 120_000, ...(clip ? { clip } : {}) });
  return file;
}
