import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import { createWriteStream } from 'node:fs';
import type { Page } from 'playwright-core';
import { screenshot, viewports } from './support/browser.js';
import { startPlaygroundSite, type PlaygroundSite } from './support/playground-site.js';
import { answerCheck, registerAndSignIn } from './support/playground-forms.js';

let site: PlaygroundSite;
const password = 'correct horse battery';

before(async () => {
  site = await startPlaygroundSite('godb-playground-');
});
after(() => site?.stop());

const signIn = (page: Page, email: string) => registerAndSignIn(page, site.server.baseUrl, email, password);

async function choose(page: Page, name: string) {
  await page.getByRole('button', { name: new RegExp(`^(GET|POST|PUT|PATCH|DELETE) ${name}$`) }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}
const field = (page: Page, name: string) => page.locator(`#field-${name}`);
async function send(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Send Request' }).click();
  await page.getByRole('button', { name: 'Send Request' }).waitFor();
  return (await page.getByTestId('response').textContent()) ?? '';
}

function makePdf(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument();
    const out = createWriteStream(file);
    out.on('finish', () => resolve());
    out.on('error', reject);
    doc.pipe(out);
    doc.fontSize(16).text('Transonic buffet on supercritical aerofoils');
    doc
      .moveDown()
      .fontSize(11)
      .text(
        'Shock oscillation and boundary layer separation cause buffet on transport aircraft wings near cruise Mach numbers.',
      );
    doc.addPage().text('The second page describes wind tunnel measurements of unsteady pressure.');
    doc.end();
  });
}

describe('sign-in', () => {
  test('the checks of the login and register forms', async () => {
    const page = await site.browser.newPage({ viewport: viewports.desktop });
    await page.goto(`${site.server.baseUrl}/playground`);
    await page.getByRole('tab', { name: 'Register' }).click();
    const tenant = await page.getByRole('textbox', { name: 'Tenant ID' }).inputValue();
    assert.match(tenant, /^[0-9a-f-]{36}$/);
    assert.equal(await page.getByRole('textbox', { name: 'Tenant ID' }).getAttribute('readonly'), '');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill('x@example.com');
    await page.locator('input[name="password"]').fill('password-1');
    await page.locator('input[name="confirm"]').fill('password-2');
    await page.getByRole('textbox', { name: /= \?/ }).fill('99');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByText('Incorrect captcha answer').waitFor();
    await answerCheck(page);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByText('Passwords do not match').waitFor();
    await page.locator('input[name="confirm"]').fill('password-1');
    await answerCheck(page);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByText('Name and Company are required for registration').waitFor();
    await screenshot(page, 'playground-register-desktop');
    await page.getByRole('tab', { name: 'Login' }).click();
    assert.equal(
      await page.getByRole('textbox', { name: 'Email', exact: true }).inputValue(),
      '',
      'toggling clears the form',
    );
    assert.equal(await page.getByText('Name and Company are required for registration').count(), 0, 'and the error');
    await page.getByRole('tab', { name: 'Register' }).click();
    assert.notEqual(
      await page.getByRole('textbox', { name: 'Tenant ID' }).inputValue(),
      tenant,
      'and regenerates the tenant ID',
    );
    await page.getByRole('tab', { name: 'Login' }).click();
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill('nobody-new@example.com');
    await page.locator('input[name="password"]').fill('x');
    await answerCheck(page);
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    await page.getByRole('alert').waitFor();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /Invalid email or password|Login failed/);
    await page.close();
  });
});

describe('playground', () => {
  test('register, log in, upload a real PDF, and find it by text and by vector search', async () => {
    const page = await site.browser.newPage({ viewport: viewports.desktop });
    await signIn(page, `ada-${randomUUID()}@example.com`);
    await page.getByText('Select an endpoint from the sidebar to get started').waitFor();
    await screenshot(page, 'playground-empty-desktop');
    const pdf = join(site.workDir, 'buffet.pdf');
    await makePdf(pdf);
    await choose(page, 'Add Document');
    assert.equal(await field(page, 'lang_code').inputValue(), 'en');
    assert.equal(await field(page, 'visibility').inputValue(), 'public');
    assert.equal(await field(page, 'metadata').inputValue(), '{}');
    await field(page, 'id').fill('buffet-paper');
    await field(page, 'file').setInputFiles(pdf);
    const added = await send(page);
    assert.match(added, /"document_id": "buffet-paper"/);
    await screenshot(page, 'playground-upload-desktop');

    await choose(page, 'Text Search');
    await field(page, 'query').fill('supercritical aerofoils');
    assert.match(await send(page), /"document_id": "buffet-paper"/);

    await choose(page, 'Vector Search');
    await field(page, 'query').fill('oscillating shocks make wings shake');
    await field(page, 'threshold').fill('0.1');
    assert.match(await send(page), /"document_id": "buffet-paper"/);

    await choose(page, 'Get Document');
    await field(page, 'id').fill('buffet-paper');
    const doc = await send(page);
    assert.match(doc, /wind tunnel measurements/, 'both pages were extracted');
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    assert.match(
      (await page.getByLabel('curl command').textContent()) ?? '',
      /curl -X GET '.*\/api\/v1\/documents\/buffet-paper/,
    );
    await page.close();
  });

  test('client-side checks show the specification’s messages and send nothing', async () => {
    const page = await site.browser.newPage({ viewport: viewports.desktop });
    await signIn(page, `checks-${randomUUID()}@example.com`);
    const expectMessage = async (message: string | RegExp) => {
      const text = await send(page);
      if (typeof message === 'string') assert.equal(text, message);
      else assert.match(text, message);
      assert.match((await page.getByTestId('response').getAttribute('class')) ?? '', /Error/);
    };
    await choose(page, 'Text Search');
    await expectMessage("query parameter 'query' is required");
    await field(page, 'query').fill('wing');
    await field(page, 'filters').fill('{nope');
    await expectMessage(/^Invalid JSON in filters: /);
    await choose(page, 'Vector Search');
    await field(page, 'threshold').fill('2');
    await expectMessage('Threshold must be between 0 and 1');
    await field(page, 'threshold').fill('0.5');
    await field(page, 'vector').fill('[1, 2');
    await expectMessage(/^Invalid vector format: /);
    await choose(page, 'Graph Search');
    await field(page, 'depth').fill('0');
    await expectMessage('Depth must be greater than 0');
    await choose(page, 'Recommendations');
    await field(page, 'content_weight').fill('0.9');
    await expectMessage('Weights must sum to 1.0 for hybrid strategy');
    await choose(page, 'Track Engagement');
    await field(page, 'id').fill('anything');
    await field(page, 'feedback').fill('{bad json');
    await expectMessage(/^Invalid JSON in feedback: /);
    await choose(page, 'Add Document');
    const png = join(site.workDir, 'image.png');
    (await import('node:fs')).writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    await field(page, 'file').setInputFiles(png);
    await expectMessage('Unsupported file type: image/png. Only PDF and text files are supported.');
    const broken = join(site.workDir, 'broken.pdf');
    (await import('node:fs')).writeFileSync(broken, 'this is not a pdf');
    await field(page, 'file').setInputFiles(broken);
    await expectMessage(
      // One period between the reason and the advice, never two (issue #20).
      /^File processing error: PDF processing failed with both methods: (?!.*\.\.).*[^.]\. Please ensure the file is a valid PDF or text file\.$/,
    );
    // A server-side error is shown as the API's answer.
    await choose(page, 'Get Document');
    await field(page, 'id').fill('missing-document');
    await expectMessage(/^API Error: 404 Not Found - \{"error":\{"code":"NOT_FOUND"/);
    await page.close();
  });

  test('form values are kept per endpoint; logout clears everything', async () => {
    const page = await site.browser.newPage({ viewport: viewports.desktop });
    await signIn(page, `keep-${randomUUID()}@example.com`);
    await choose(page, 'Text Search');
    await field(page, 'query').fill('kept value');
    await choose(page, 'Geo Search');
    await choose(page, 'Text Search');
    assert.equal(await field(page, 'query').inputValue(), 'kept value');
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.getByRole('tab', { name: 'Login' }).waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem('authToken')), null);
    await page.close();
  });

  test('an expired session logs out with the session message; an unreachable API says what to check', async () => {
    const page = await site.browser.newPage({ viewport: viewports.desktop });
    await signIn(page, `expiry-${randomUUID()}@example.com`);
    await page.route('**/api/v1/search/text', (route) => route.abort('connectionrefused'));
    await choose(page, 'Text Search');
    await field(page, 'query').fill('anything');
    const unreachable = await send(page);
    assert.match(unreachable, /Cannot reach the API server/);
    assert.match(unreachable, /running on local port 8081/);
    assert.match(unreachable, /CORS/);
    assert.match(unreachable, /accepts file uploads/);
    await page.unroute('**/api/v1/search/text');
    await page.evaluate(() => localStorage.setItem('authToken', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.bm90LXZhbGlk'));
    await page.goto(`${site.server.baseUrl}/playground`);
    await choose(page, 'Text Search');
    await field(page, 'query').fill('anything');
    await page.getByRole('button', { name: 'Send Request' }).click();
    await page.getByText('Session expired. Please login again.').waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem('authToken')), null);
    await page.close();
  });

  test('Report Issue: the dialog, a backdrop click, and the report arriving by e-mail', async () => {
    const page = await site.browser.newPage({ viewport: viewports.desktop });
    await signIn(page, `report-${randomUUID()}@example.com`);
    await page.getByRole('button', { name: 'Report Issue' }).click();
    const dialog = page.getByRole('dialog', { name: 'Report an Issue' });
    await dialog.waitFor();
    await page.getByTestId('modal-backdrop').click({ position: { x: 5, y: 5 } });
    assert.equal(await dialog.count(), 0, 'a click on the backdrop closes it');
    await page.getByRole('button', { name: 'Report Issue' }).click();
    const options = await dialog.locator('select option').allTextContents();
    assert.ok(options.includes('Text Search (POST /api/v1/search/text)'));
    await dialog.locator('select').selectOption('Text Search (POST /api/v1/search/text)');
    await dialog.getByRole('textbox', { name: 'Your Name' }).fill('Grace');
    await dialog.getByRole('textbox', { name: 'Email' }).fill('grace@example.com');
    await dialog.getByRole('textbox', { name: 'Issue Description' }).fill('The phrase query misses a document.');
    assert.equal(await dialog.getByRole('textbox', { name: 'Issue Description' }).getAttribute('rows'), '4');
    await screenshot(page, 'playground-report-issue');
    const alert = new Promise<string>((resolve) => page.once('dialog', (d) => (resolve(d.message()), void d.accept())));
    await dialog.getByRole('button', { name: 'Submit' }).click();
    assert.equal(await alert, 'Issue reported successfully!');
    const mail = await site.smtp.waitForMessage(
      (m) => m.subject === 'API Issue Report - Text Search (POST /api/v1/search/text)',
    );
    assert.match(mail.text, /Issue Report/);
    assert.match(mail.text, /The phrase query misses a document\./);
    await page.close();
  });

  test('at phone width', async () => {
    const page = await site.browser.newPage({ viewport: viewports.mobile });
    await signIn(page, `phone-${randomUUID()}@example.com`);
    await choose(page, 'Hybrid Search');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `${width} px`);
    await screenshot(page, 'playground-mobile');
    await page.close();
  });
});
