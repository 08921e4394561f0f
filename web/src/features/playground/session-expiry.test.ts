import { test } from 'node:test';
import assert from 'node:assert/strict';
import { endsSession } from './session-expiry.js';

test('a 401 with a token code ends the session, whatever its text', () => {
  assert.equal(endsSession(401, { error: { code: 'UNAUTHORIZED', message: 'Unauthorized: token expired' } }), true);
  assert.equal(endsSession(401, 'Unauthorized'), true);
});

test('issue 20: "401" in a message or a request id of another status keeps the session', () => {
  const body = {
    error: {
      code: 'NOT_FOUND',
      message: 'Document report-401 not found',
      status: 404,
      request_id: '4017c1d2-0401-4401-8401-401401401401',
    },
  };
  assert.equal(endsSession(404, body), false);
  assert.equal(
    endsSession(403, { error: { code: 'FORBIDDEN', message: 'Insufficient privileges: Unauthorized' } }),
    false,
  );
  assert.equal(endsSession(401, { error: { code: 'NOT_FOUND' } }), false);
});
