import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../config/env.js';
import { checkNatsVersion } from './nats-log.js';

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
