import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isGoDBError } from '@godb/contract';
import { BackgroundWork } from './background-work.js';

test('background work is bounded: past the bound it answers OVERLOADED, and a finished slot is free again', async () => {
  const work = new BackgroundWork(2);
  const release: (() => void)[] = [];
  const pending = () => new Promise<void>((done) => release.push(done));
  work.start(pending);
  work.start(pending);
  assert.throws(
    () => work.start(pending),
    (e: unknown) => isGoDBError(e) && e.code === 'OVERLOADED' && e.details?.retry_after === 5,
  );
  await new Promise((resolve) => setImmediate(resolve));
  release[0]!();
  await new Promise((resolve) => setImmediate(resolve));
  work.start(async () => {});
});
