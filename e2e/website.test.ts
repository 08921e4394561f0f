import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot, viewports } from './support/browser.js';
import { freePort, startServerProcess, type ServerProcess } from './support/server-process.js';
import { SmtpPeer } from './support/smtp.js';

let server: ServerProcess;
let browser: Browser;
let smtp: SmtpPeer;
let smtpPort: number;

before(async () => {
  smtpPort = await freePort();
  smtp = new SmtpPeer();
  await smtp.start(smtpPort);
  server = await startServerProcess({
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtpPort),
    MAIL_TEAM_ADDRESS: 'team@godb.test',
    MAIL_BLOCKED_SENDERS: '@blocked.test',
    MAIL_RETRY_BASE_MS: '100',
  });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  await smtp?.stop();
});

async function open(path: string, viewport: keyof typeof viewports = 'desktop'): Promise<Page> {
  const page = await browser.newPage({ viewport: viewports[viewport] });
  await page.goto(`${server.baseUrl}${path}`);
  return page;
}

const seesText = async (page: Page, text: string) => {
  await page.getByText(text, { exact: false }).first().waitFor({ timeout: 10_000 });
};

describe('pages', () => {
  test('home: every string of the specification, and its buttons', async () => {
    const page = await open('/');
    for (const text of [
      'Beta Release - Try out the future of vector databases',
      'The Unified Intelligent Data Platform',
      'High-performance, distributed vector database and search engine designed for modern AI applications',
      'Vector Search',
      'Graph Operations',
      'Hybrid Search',
      'currently under testing and optimization',
      '50ms',
      '1000+',
      '99.99%',
      '1M+',
      'Ready to Get Started?',
      'Join the beta program and experience the future of vector databases',
    ]) {
      await seesText(page, text);
    }
    await screenshot(page, 'home-desktop');
    await page.getByRole('link', { name: 'Get Started' }).click();
    await page.waitForURL(/\/documentation/);
    await page.goto(`${server.baseUrl}/`);
    await page.getByRole('link', { name: 'Read Whitepaper' }).click();
    await page.waitForURL(/\/whitepaper$/);
    await page.goto(`${server.baseUrl}/`);
    await page.getByRole('link', { name: 'View Whitepaper' }).click();
    await page.waitForURL(/\/whitepaper$/);
    await page.goto(`${server.baseUrl}/`);
    await page.getByRole('link', { name: 'Read Documentation' }).click();
    await page.waitForURL(/\/documentation/);
    await page.close();
  });

  test('shared chrome: sticky nav links, external repository link, footer groups and copyright', async () => {
    const page = await open('/');
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const [name, path] of [
      ['Whitepaper', '/whitepaper'],
      ['Documentation', '/documentation'],
      ['Contact', '/contact'],
      ['Home', '/'],
    ] as const) {
      await nav.getByRole('link', { name, exact: true }).click();
      await page.waitForURL((url) => url.pathname === path);
    }
    // The repository link is build-time configuration (VITE_REPOSITORY_URL); unset, the site shows no dead link.
    const repo = nav.getByRole('link', { name: /GitHub/ });
    if (process.env.VITE_REPOSITORY_URL) {
      assert.equal(await repo.getAttribute('target'), '_blank');
      assert.equal(await repo.getAttribute('rel'), 'noopener noreferrer');
    } else {
      assert.equal(await repo.count(), 0);
    }
    const footer = page.getByRole('contentinfo');
    for (const group of ['Resources', 'Community', 'Legal'])
      await footer.getByRole('heading', { name: group }).waitFor();
    for (const [name, href] of [
      ['Documentation', '/documentation'],
      ['Whitepaper', '/whitepaper'],
      ['API Playground', '/playground'],
      ['Contact Us', '/contact'],
      ['Privacy Policy', '/privacy-policy'],
      ['Terms of Service', '/terms-of-service'],
    ]) {
      assert.equal(await footer.getByRole('link', { name, exact: true }).getAttribute('href'), href);
    }
    assert.ok(await footer.getByText(/© 2025/).isVisible());
    const position = await page
      .locator('header')
      .first()
      .evaluate((el) => getComputedStyle(el).position);
    assert.equal(position, 'sticky');
    await page.close();
  });

  test('whitepaper: its sections and a PDF built from the same text', async () => {
    const page = await open('/whitepaper');
    for (const title of ['Executive Summary', 'Introduction', 'Components', 'Data Model']) {
      await page.getByRole('heading', { name: title, exact: true }).waitFor();
    }
    await screenshot(page, 'whitepaper-desktop');
    const pdf = await fetch(`${server.baseUrl}/godb-whitepaper.pdf`);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.equal(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
      '%PDF-',
    );
    assert.equal(await page.getByRole('link', { name: 'Download PDF' }).getAttribute('href'), '/godb-whitepaper.pdf');
    await page.close();
  });

  test('legal pages state the evaluation terms', async () => {
    const page = await open('/terms-of-service');
    for (const text of [
      'evaluation and testing only',
      'redistribute',
      'modify',
      'reverse-engineer',
      'commercial purpose',
      'as is',
      'disclaim all liability',
    ]) {
      await seesText(page, text);
    }
    const privacy = await open('/privacy-policy');
    await privacy.getByRole('heading', { name: 'Privacy Policy' }).waitFor();
    await privacy.close();
    await page.close();
  });
});

describe('behaviour', () => {
  test('mobile: no page is wider than the phone (390 px)', async () => {
    for (const path of ['/', '/whitepaper', '/contact', '/privacy-policy', '/terms-of-service', '/nope']) {
      const page = await open(path, 'mobile');
      await page.waitForLoadState('networkidle');
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `${path} is ${width} px wide`);
      if (path === '/whitepaper' || path === '/contact') await screenshot(page, `${path.slice(1)}-mobile`);
      await page.close();
    }
  });

  test('mobile: the menu toggles, and choosing a link closes it and navigates (390 px)', async () => {
    const page = await open('/', 'mobile');
    await screenshot(page, 'home-mobile');
    const toggle = page.getByRole('button', { name: 'Open menu' });
    await toggle.waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0, 'links are collapsed');
    await toggle.click();
    assert.equal(await page.getByRole('button', { name: 'Close menu' }).getAttribute('aria-expanded'), 'true');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Whitepaper' }).click();
    await page.waitForURL(/\/whitepaper$/);
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0, 'the menu closed');
    await page.close();
  });

  test('scroll animations: cards get their class once 10 % is visible, delayed 100 ms per position', async () => {
    const page = await open('/');
    const cards = page.locator('article[data-animate]');
    await cards.last().waitFor(); // the route's code may still be loading
    assert.equal(await cards.count(), 3);
    assert.deepEqual(await cards.evaluateAll((els) => els.map((e) => (e as HTMLElement).style.transitionDelay)), [
      '0ms',
      '100ms',
      '200ms',
    ]);
    const metric = page.getByText('Uptime').locator('..');
    assert.equal(
      await metric.evaluate((el) => el.classList.contains('animate-in')),
      false,
      'below the fold: not yet animated',
    );
    await metric.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelectorAll('[data-animate].animate-in').length >= 8);
    assert.equal(await metric.evaluate((el) => el.classList.contains('animate-in')), true);
    await page.close();
  });

  test('contact: success clears the form; failure keeps what was typed', async () => {
    const page = await open('/contact');
    await seesText(page, 'Partner with Us');
    await seesText(page, 'Shape the Future of Vector Databases');
    await screenshot(page, 'contact-desktop');
    const fill = async (email: string) => {
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Grace Hopper');
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
      await page.getByRole('textbox', { name: 'Phone Number', exact: true }).fill('+1 555 0100');
      await page.getByRole('textbox', { name: 'Subject', exact: true }).fill('Partnership');
      await page.getByRole('textbox', { name: 'Message', exact: true }).fill('We would like to evaluate GoDB.');
    };
    await fill('grace@example.com');
    await page.getByRole('button', { name: 'Send Message' }).click();
    await seesText(page, "Thank you for your message! We'll get back to you soon.");
    assert.equal(await page.getByRole('textbox', { name: 'Name', exact: true }).inputValue(), '');
    const mail = await smtp.waitForMessage((m) => m.subject === 'Partnership');
    assert.equal(mail.to, 'team@godb.test');

    await fill('grace@blocked.test');
    await page.getByRole('button', { name: 'Send Message' }).click();
    await seesText(page, 'Sorry, there was an error sending your message. Please try again.');
    assert.equal(
      await page.getByRole('textbox', { name: 'Message', exact: true }).inputValue(),
      'We would like to evaluate GoDB.',
    );
    await page.close();
  });

  test('contact with SMTP down: the message waits in the outbox and arrives when SMTP returns', async () => {
    await smtp.stop();
    const page = await open('/contact');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Patient Sender');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill('patient@example.com');
    await page.getByRole('textbox', { name: 'Phone Number', exact: true }).fill('+1 555 0101');
    await page.getByRole('textbox', { name: 'Subject', exact: true }).fill('Sent while SMTP was down');
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Deliver me later.');
    await page.getByRole('button', { name: 'Send Message' }).click();
    await seesText(page, "Thank you for your message! We'll get back to you soon.");
    await new Promise((r) => setTimeout(r, 500));
    smtp = new SmtpPeer();
    await smtp.start(smtpPort);
    const mail = await smtp.waitForMessage((m) => m.subject === 'Sent while SMTP was down', 30_000);
    assert.match(mail.text, /Deliver me later\./);
    await page.close();
  });

  test('unknown routes show the error page at phone width too', async () => {
    const page = await open('/no/such/page', 'mobile');
    await page.getByRole('heading', { name: 'Oops! Something went wrong' }).waitFor();
    await seesText(page, 'Page not found');
    await screenshot(page, 'error-mobile');
    await page.close();
  });
});
