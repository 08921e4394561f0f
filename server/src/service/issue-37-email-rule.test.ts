import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { emailProblem } from '@godb/contract';
import { startTestServer, type TestServer } from '../test-support/server.js';

// Issue #37 (11): the browser accepts `walker@invalid`, the server refused it, and the forms showed only their
// generic failure. The forms now check the contract's rule (emailProblem) and the server checks `format: email`
// with the same rule: for every address below, the server registers it exactly when the forms let it through.

const addresses = [
  'walker@invalid',
  'ada@example.com',
  'Ada.Lovelace+godb@mail.example.co.uk',
  "o'brien@example.ie",
  'a..b@example.com',
  '.ada@example.com',
  'ada@@example.com',
  'ada@example',
  'ada@-example.com',
  'ada example@example.com',
  'ada@example.com.',
  'ada@localhost',
  'x@y.z',
];

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server.close();
});

test('issue 37: the server registers an address exactly when the forms’ rule accepts it', async () => {
  for (const address of addresses) {
    const email = address.replace('@', `-${randomUUID().slice(0, 8)}@`);
    const answer = await server.call('POST', '/auth/register', undefined, {
      email,
      password: 'correct horse battery',
      tenant_id: randomUUID(),
    });
    const accepted = emailProblem(email) === undefined;
    assert.equal(answer.status === 201, accepted, `${address}: ${answer.status} ${JSON.stringify(answer.body)}`);
    if (!accepted) {
      assert.equal(answer.body.error?.code, 'VALIDATION_FAILED');
      assert.equal(answer.body.error?.field, 'body.email');
      assert.equal(
        answer.body.error?.message,
        'body.email must be an e-mail address such as ada@example.com: a name, one @, and a domain with a dot',
      );
    }
  }
});

test('issue 37: the forms’ reason for walker@invalid names the missing dot', () => {
  assert.equal(
    emailProblem('walker@invalid'),
    'The domain after the @ needs a dot, as in walker@invalid.com: this server cannot deliver to "invalid".',
  );
  assert.equal(emailProblem(' ada@example.com '), undefined);
  assert.match(emailProblem('ada') ?? '', /one @/);
});

test('issue 37: the mail helper refuses with the same rule', async () => {
  const answer = await server.call('POST', '/api/v1/mail', undefined, {
    from_name: 'Walker',
    from_email: 'walker@invalid',
    subject: 'Hello',
    message: 'Hi',
  });
  assert.equal(answer.status, 400, JSON.stringify(answer.body));
  assert.equal(answer.body.error?.field, 'body.from_email');
});
