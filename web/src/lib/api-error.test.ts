import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createError, type ErrorCode, type ErrorParams } from '@godb/contract/errors';
import { ApiError, answerText, attachmentName, parseBody, valueOf, type ApiResponse } from './api-error.js';

const statusTexts: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  502: 'Bad Gateway',
};

/** An answer as the server sends it for a catalogue error (transport/http's error handler shape). */
function answerFor(code: ErrorCode, params: ErrorParams = {}, requestId = '4017c1d2-0401-4401-8401-401401401401') {
  const error = createError(code, params);
  const text = JSON.stringify({
    error: { code: error.code, message: error.message, status: error.status, request_id: requestId },
  });
  return answer(error.status, text);
}

const answer = (status: number, text: string): ApiResponse => ({
  ok: status >= 200 && status < 300,
  status,
  statusText: statusTexts[status] ?? '',
  body: parseBody(text),
  text,
});

const errorOf = (response: ApiResponse): ApiError => {
  try {
    valueOf(response);
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return error;
  }
  throw new assert.AssertionError({ message: 'a non-2xx answer must throw ApiError' });
};

test('a success answers its body; an error answer throws ApiError with the catalogue code and message', () => {
  assert.deepEqual(valueOf(answer(200, '{"keys":[],"total":0}')), { keys: [], total: 0 });
  const error = errorOf(answerFor('NOT_FOUND', { resource: 'Document', id: 'report-401' }));
  assert.equal(error.status, 404);
  assert.equal(error.code, 'NOT_FOUND');
  assert.equal(error.message, createError('NOT_FOUND', { resource: 'Document', id: 'report-401' }).message);
  assert.match(error.display, /^API Error: 404 Not Found - \{"error":\{"code":"NOT_FOUND"/);
});

test('a 401 with a token code ends the session, whatever its text; so does a 401 without GoDB’s shape', () => {
  assert.equal(errorOf(answerFor('UNAUTHORIZED')).endsSession, true);
  const proxy = errorOf(answer(401, 'Unauthorized'));
  assert.equal(proxy.endsSession, true);
  assert.equal(proxy.code, undefined);
  assert.equal(proxy.message, '401 Unauthorized');
});

test('issue 20: "401" in a message or a request id of another status keeps the session', () => {
  assert.equal(errorOf(answerFor('NOT_FOUND', { resource: 'Document', id: 'report-401' })).endsSession, false);
  assert.equal(errorOf(answerFor('FORBIDDEN', { reason: 'Unauthorized' })).endsSession, false);
  // A 401 whose code the catalogue answers with another status is not a refused token.
  const odd = answer(401, JSON.stringify({ error: { code: 'NOT_FOUND', message: 'x', status: 401, request_id: 'r' } }));
  assert.equal(errorOf(odd).endsSession, false);
});

test('a code the catalogue does not know is not taken for one', () => {
  const error = errorOf(answer(502, JSON.stringify({ error: { code: 'UPSTREAM_DOWN', message: 'Bad gateway' } })));
  assert.equal(error.code, undefined);
  assert.equal(error.message, 'Bad gateway');
});

test('an NDJSON answer is shown as it came; JSON pretty-printed', () => {
  const ndjson = '{"line":1,"success":true}\n{"line":2,"success":false}\n';
  assert.equal(answerText(answer(200, ndjson)), ndjson);
  assert.equal(answerText(answer(200, '{"a":1}')), '{\n  "a": 1\n}');
});

test('an attachment is a file to save, named as the server named it', () => {
  assert.equal(attachmentName('attachment; filename="snap-1.tar"'), 'snap-1.tar');
  assert.equal(
    attachmentName(`attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`),
    'résumé.pdf',
  );
  assert.equal(attachmentName('inline; filename="a.pdf"'), undefined);
  assert.equal(attachmentName(null), undefined);
});
