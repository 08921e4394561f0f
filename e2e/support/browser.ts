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

/**
 * Pages taller than this (the API reference: tens of thousands of pixels at phone width) are pictured by their
 * first screen: capturing them whole took Chromium over 120 s on a loaded machine, a picture no reason to fail a test.
 */
const maxShotHeight = 12_000;

/** Saves a screenshot under e2e/screenshots/ for a human to look at. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = join(repoRoot, 'e2e', 'screenshots');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.png`);
  // Scroll through what the picture shows so scroll-in animations run, as they would for a reader, then come back up.
  const height = await page.evaluate(async (most) => {
    const pictured = Math.min(document.body.scrollHeight, most);
    for (let y = 0; y < pictured; y += window.innerHeight / 2) {
      window.scrollTo(0, y);
      await new Promise((r) => setTimeout(r, 60));
    }
    window.scrollTo(0, 0);
    return document.documentElement.scrollHeight;
  }, maxShotHeight);
  await page.waitForTimeout(900);
  await page.screenshot({ path: file, fullPage: height <= maxShotHeight, timeout: 120_000 });
  return file;
}
