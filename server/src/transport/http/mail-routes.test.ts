import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SmtpPeer } from '../../test-support/smtp-peer.js';
import { startTestServer, type TestServer } from '../../test-support/server.js';

type Body = Record<string, unknown> & { error?: { code: string; message: string; field?: string } };

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

let now = Date.UTC(2026, 5, 1);
let server: TestServer;
let smtp: SmtpPeer;
let releaseDir: string;
const emailService = (template_id: string, template_params: unknown, extra: Record<string, unknown> = {}) => ({
  service_id: 'godb',
  template_id,
  user_id: 'godb-public-key',
  template_params,
  ...extra,
});

async function post(url: string, payload: unknown, remoteAddress = '127.0.0.1') {
  const res = await server.app.inject({ method: 'POST', url, payload: payload as object, remoteAddress });
  return { status: res.statusCode, body: res.json() as Body, headers: res.headers };
}

before(async () => {
  smtp = new SmtpPeer();
  const port = await smtp.start();
  releaseDir = mkdtempSync(join(tmpdir(), 'godb-release-'));
  mkdirSync(releaseDir, { recursive: true });
  writeFileSync(join(releaseDir, 'godb-0.1.0.tar.gz'), Buffer.from('a real release is built by npm run package'));
  server = await startTestServer(
    {
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(port),
      MAIL_TEAM_ADDRESS: 'team@godb.test',
      MAIL_BLOCKED_SENDERS: 'spam@example.com,@blocked.test',
      MAIL_MAX_PER_HOUR: '3',
      MAIL_RETRY_BASE_MS: '50',
      RELEASE_DIR: releaseDir,
      PUBLIC_URL: 'http://godb.test',
    },
    { now: () => now },
  );
});
after(async () => {
  await server.close();
  await smtp.stop();
  rmSync(releaseDir, { recursive: true, force: true });
});

describe('mail helper', () => {
  test('a contact message reaches the team, with the sender as reply-to', async () => {
    const res = await post('/api/v1/mail', {
      from_name: 'Grace',
      from_email: 'grace@example.com',
      phone: '+1 555 0100',
      subject: 'Partnership',
      message: 'Let us talk.',
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    const mail = await smtp.waitForMessage((m) => m.subject === 'Partnership');
    assert.equal(mail?.to, 'team@godb.test');
    assert.equal(mail?.subject, 'Partnership');
    assert.equal(mail?.replyTo, 'grace@example.com');
    assert.match(mail?.text ?? '', /Phone: \+1 555 0100[\s\S]*Let us talk\./);
  });

  test('blocked senders get 403, busy senders 429 with Retry-After', async () => {
    const blocked = await post(
      '/api/v1/mail',
      { from_name: 'X', from_email: 'someone@blocked.test', subject: 's', message: 'm' },
      '10.0.0.9',
    );
    assert.equal(blocked.status, 403);
    assert.equal(blocked.body.error?.code, 'SENDER_BLOCKED');
    for (let i = 0; i < 3; i += 1)
      assert.equal(
        (
          await post(
            '/api/v1/mail',
            { from_name: 'Busy', from_email: 'busy@example.com', subject: `s${i}`, message: 'm' },
            '10.0.0.7',
          )
        ).status,
        200,
      );
    const throttled = await post(
      '/api/v1/mail',
      { from_name: 'Busy', from_email: 'busy@example.com', subject: 's', message: 'm' },
      '10.0.0.7',
    );
    assert.equal(throttled.status, 429);
    assert.equal(throttled.headers['retry-after'], '3600');
    assert.match(throttled.body.error?.message ?? '', /^Too Many Requests/);
  });
});

describe('e-mail service', () => {
  test('missing IDs or non-object params are 400s', async () => {
    const missing = await post('/api/v1.0/email/send', { template_id: 'binary_request', template_params: {} });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error?.message, 'The service ID, template ID and public key are required');
    const params = await post('/api/v1.0/email/send', emailService('binary_request', 'not an object'));
    assert.equal(params.body.error?.message, 'The template params must be an object');
    const key = await post('/api/v1.0/email/send', { ...emailService('binary_request', {}), user_id: 'wrong' });
    assert.equal(key.body.error?.message, 'The Public Key is invalid');
    const spam = await post(
      '/api/v1.0/email/send',
      emailService('binary_request', { from_name: 'S', from_company: 'S', from_email: 'spam@example.com' }),
      '10.0.0.5',
    );
    assert.equal(spam.status, 403);
  });

  test('a binary request notifies the team and e-mails a signed link that downloads the release once, until it expires', async () => {
    const res = await post(
      '/api/v1.0/email/send',
      emailService('binary_request', {
        from_name: 'Ada',
        from_company: 'Engines Ltd',
        from_email: 'ada@example.com',
        from_phone: '',
        message: 'Evaluating.',
      }),
      '10.0.0.2',
    );
    assert.equal(res.status, 200);
    const team = await smtp.waitForMessage((m) => m.to === 'team@godb.test' && m.subject.startsWith('Binary request'));
    const requester = await smtp.waitForMessage((m) => m.to === 'ada@example.com');
    assert.match(team?.subject ?? '', /^Binary request - Ada \(Engines Ltd\)$/);
    const url = /http:\/\/godb\.test(\/api\/v1\/downloads\/\S+)/.exec(requester?.text ?? '')?.[1];
    assert.ok(url, requester?.text);
    const download = await server.app.inject({ url });
    assert.equal(download.statusCode, 200);
    assert.equal(download.headers['content-type'], 'application/gzip');
    assert.equal(download.body, 'a real release is built by npm run package');
    const tampered = await server.app.inject({
      // One character of the signature changed (to one it is not: a fixed replacement fails 1 run in 64).
      url: url.replace(/signature=(.)/, (_m, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`),
      headers: { accept: 'text/html' },
    });
    assert.equal(tampered.statusCode, 403);
    assert.match(tampered.body, /This download link cannot be used/);
    now += 3601 * 1000;
    const expired = await server.app.inject({ url });
    assert.equal(expired.statusCode, 403);
    assert.match((expired.json() as Body).error?.message ?? '', /has expired/);
  });

  test('a registration notice welcomes the user', async () => {
    const res = await post(
      '/api/v1.0/email/send',
      emailService('registration_notice', {
        to_email: 'new@example.com',
        user_name: 'New User',
        user_company: 'Acme',
        message: 'Welcome',
      }),
      '10.0.0.3',
    );
    assert.equal(res.status, 200);
    await smtp.waitForMessage((m) => m.to === 'new@example.com' && m.subject === 'Welcome to GoDB');
    await smtp.waitForMessage((m) => m.to === 'team@godb.test' && m.subject === 'New registration - New User (Acme)');
  });
});

test('with SMTP down nothing is lost: the message waits in the outbox and is delivered when SMTP returns', async () => {
  const port = await freePort();
  const down = await startTestServer({
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(port),
    MAIL_RETRY_BASE_MS: '50',
    MAIL_TEAM_ADDRESS: 'team@godb.test',
  });
  const peer = new SmtpPeer();
  try {
    const res = await down.app.inject({
      method: 'POST',
      url: '/api/v1/mail',
      payload: {
        from_name: 'Patient',
        from_email: 'patient@example.com',
        subject: 'While down',
        message: 'Please deliver me later.',
      },
    });
    assert.equal(res.statusCode, 200, 'accepted although SMTP is down');
    const [id] = (res.json() as { message_ids: string[] }).message_ids;
    // The first delivery attempt fails soon after; wait for it rather than for a fixed time (CI machines are busy).
    for (let waited = 0; (down.engine.outbox.status(id!)?.attempts ?? 0) < 1 && waited < 10_000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    const pending = down.engine.outbox.status(id!);
    assert.equal(pending?.status, 'pending');
    assert.ok((pending?.attempts ?? 0) >= 1, 'delivery was attempted and failed');
    assert.match(pending?.last_error ?? '', /ECONNREFUSED|connect/i);
    await peer.start(port);
    const [mail] = await peer.waitFor(1, 20_000);
    assert.equal(mail?.subject, 'While down');
    assert.equal(down.engine.outbox.status(id!)?.status, 'sent');
  } finally {
    await down.close();
    await peer.stop();
  }
});
