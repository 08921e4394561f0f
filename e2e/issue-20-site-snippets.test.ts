import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { docSections } from '../web/src/features/docs/doc-sections.js';
import { viewports } from './support/browser.js';
import { signUp } from './support/accounts.js';
import { serverAndBrowser } from './support/playground-site.js';

// Issue #20 (9): the home page's curl example failed as pasted (415, no content-type). Every shell snippet the
// site shows is run here, as a reader would paste it, against a fresh server.

const site = serverAndBrowser();

const pages = ['/', ...docSections.map((s) => `/documentation/${s.slug}`), '/whitepaper', '/contact'];

interface Snippet {
  readonly page: string;
  readonly text: string;
}

/** The shell snippets of every page, read from the built site in a browser, in page order. */
async function siteSnippets(): Promise<Snippet[]> {
  const page = await site.browser.newPage({ viewport: viewports.desktop });
  const found: Snippet[] = [];
  for (const path of pages) {
    await page.goto(`${site.server.baseUrl}${path}`);
    await page.locator('h1').first().waitFor();
    await page.waitForLoadState('networkidle');
    // A command a reader could paste that is not marked as a snippet would escape this test.
    const unmarked = await page.locator('pre:not([data-snippet])', { hasText: /\bcurl\s/ }).count();
    assert.equal(unmarked, 0, `${path} shows a curl command outside a data-snippet block`);
    for (const text of await page.locator('pre[data-snippet="shell"]').allTextContents()) {
      found.push({ page: path, text });
    }
  }
  await page.close();
  return found;
}

/** Runs a snippet as pasted into bash, against the test's server; curl fails on an HTTP error. */
function runSnippet(snippet: string, env: Record<string, string>): { status: number | null; output: string } {
  const script = [
    'set -eo pipefail',
    // The reader sees an error answer as a failure: --fail-with-body keeps the body for the message below.
    'curl() { command curl --silent --show-error --fail-with-body "$@"; }',
    snippet.replaceAll('localhost:8081', `127.0.0.1:${site.server.port}`),
  ].join('\n');
  const result = spawnSync('bash', ['-c', script], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

test('issue 20: every shell snippet on the site works when pasted against a fresh install', async () => {
  // What a reader of the home page has done before: registered and logged in, with TOKEN set.
  const email = `reader-${randomUUID()}@example.com`;
  const password = 'correct horse battery';
  const token = await signUp(site.server.baseUrl, email, password);

  const snippets = await siteSnippets();
  assert.ok(
    snippets.some((s) => s.page === '/'),
    'the home page example is found',
  );
  assert.ok(
    snippets.some((s) => s.page === '/documentation/introduction'),
    'the first search is found',
  );
  const outputs = new Map<string, string>();
  for (const snippet of snippets) {
    const { status, output } = runSnippet(snippet.text, { TOKEN: token });
    assert.equal(status, 0, `snippet of ${snippet.page} failed:\n${snippet.text}\n---\n${output}`);
    assert.doesNotMatch(output, /"error"\s*:/, `snippet of ${snippet.page} answered an error:\n${output}`);
    outputs.set(snippet.page, `${outputs.get(snippet.page) ?? ''}${output}`);
  }
  // The first search finds the document the same snippet stored.
  assert.match(outputs.get('/documentation/introduction') ?? '', /Shock waves/);
});
