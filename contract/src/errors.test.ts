import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientMessages, createError, echo, errorCatalogue, formatMessage, maxEchoLength } from './errors.js';

test('the specification’s messages are in the catalogue verbatim', () => {
  const all: string[] = [...Object.values(errorCatalogue).map((e) => e.message), ...Object.values(clientMessages)];
  for (const message of [
    "query parameter 'query' is required",
    'Depth must be greater than 0',
    'Weights must sum to 1.0 for hybrid strategy',
    'Threshold must be between 0 and 1',
    'Invalid JSON in feedback: {reason}',
    'Invalid JSON in filters: {reason}',
    'Invalid vector format: {reason}',
    'Invalid query_type. Must be one of: {allowed}',
    'Unsupported file type: {type}. Only PDF and text files are supported.',
    'API Error: {status} {statusText} - {body}',
    'Session expired. Please login again.',
    'File processing error: {reason}. Please ensure the file is a valid PDF or text file.',
    'Failed to send issue report. Please try again later.',
    'Issue reported successfully!',
    'Insufficient privileges: only owners can modify ACL',
    'Incorrect captcha answer',
    'Passwords do not match',
    'Name and Company are required for registration',
    'Registration successful! Please login.',
    'Login failed',
  ]) {
    assert.ok(all.includes(message), `missing: ${message}`);
  }
  assert.ok(clientMessages.pdfBothMethodsFailed.startsWith('PDF processing failed with both methods'));
});

test('createError fills the template and carries the statuses', () => {
  const error = createError('NOT_FOUND', { resource: 'User', id: 'u1' }, { field: 'params.userID' });
  assert.equal(error.message, 'User u1 not found');
  assert.equal(error.status, 404);
  assert.equal(error.grpc, 'NOT_FOUND');
  assert.equal(error.field, 'params.userID');
  assert.equal(formatMessage('a {x} {missing}', { x: 1 }), 'a 1 {missing}');
});

test('echoed values carry no control or bidirectional characters, no install path, and have a length', () => {
  // Issue #22: `Model "\u202Eevil" is not available` reversed the rest of the line in terminals and log viewers.
  const message = createError('MODEL_NOT_AVAILABLE', {
    model: '\u202Eevil\u0000\r\n\u2066',
    hint: ' Put its files in /home/ada/godb/models/evil/.',
    available: 'glove-100',
  }).message;
  assert.doesNotMatch(message, /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u);
  assert.ok(message.includes('\\u202Eevil\\u0000\\u000D\\u000A\\u2066'), message);
  assert.ok(message.includes('…/models/evil/.'), message);
  assert.ok(!message.includes('/home/ada'), message);
  assert.equal(echo('C:\\srv\\godb\\data\\x.db'), '…/data/x.db');
  // Request paths are not file-system paths: a client sees the path it sent.
  assert.equal(echo('/api/v1/jobs/../../etc/passwd'), '/api/v1/jobs/../../etc/passwd');
  const long = echo('x'.repeat(10_000));
  assert.equal(long.length, maxEchoLength);
  assert.ok(long.endsWith('…'));
  assert.ok(!echo('😀'.repeat(150)).includes('\uFFFD'));
  assert.equal(createError('VALIDATION_FAILED', { detail: 'x' }, { field: 'body.\u202E' }).field, 'body.\\u202E');
});
