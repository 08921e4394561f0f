import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../config/env.js';
import { checkNatsVersion, checkSyncAlways } from './nats-version.js';

test('cluster mode refuses a nats-server older than 2.9, and one that reports no version (issue #17)', () => {
  for (const version of ['2.9.0', '2.9.10', 'v2.10.22', '2.11.0-beta.1', '3.0.0']) checkNatsVersion(version);
  for (const version of ['2.8.4', '2.2.0', '1.4.1', 'unknown', undefined]) {
    assert.throws(
      () => checkNatsVersion(version),
      (error: unknown) => error instanceof ConfigError && /needs nats-server 2\.9\.0 or newer/.test(error.message),
      String(version),
    );
  }
});

test('NATS_SYNC_ALWAYS is refused when a NATS server is older than 2.10, naming each such server', () => {
  checkSyncAlways([
    { server: '10.0.0.1:4222', version: '2.10.0' },
    { server: '10.0.0.2:4222', version: 'v2.11.3' },
    { server: '10.0.0.3:4222', version: null }, // did not answer: logged, not judged here
  ]);
  assert.throws(
    () =>
      checkSyncAlways([
        { server: '10.0.0.1:4222', version: '2.10.22' },
        { server: '10.0.0.2:4222', version: '2.9.10' },
        { server: '10.0.0.3:4222', version: '2.9.25' },
      ]),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.message.includes(
        'nats-server 2.10.0 added; 10.0.0.2:4222 reports 2.9.10, 10.0.0.3:4222 reports 2.9.25, which would ignore that',
      ) &&
      !error.message.includes('10.0.0.1'),
  );
});
