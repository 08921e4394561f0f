import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isGoDBError } from '@godb/contract';
import { BackgroundWork } from './background-work.js';

test('background work is bounded: past the bound it answers OVERLOADED, and a finished slot is free again', async () => {
  const work = new BackgroundWork(2);
  const release: (() => void)[] = [];
  const pending = () => new Promise<void>((done) => release.push(done));
  work.start('t1', pending);
  work.start('t1', pending);
  assert.throws(
    () => work.start('t1', pending),
    (e: unknown) => isGoDBError(e) && e.code === 'OVERLOADED' && e.details?.retry_after === 5,
  );
  await new Promise((resolve) => setImmediate(resolve));
  release[0]!();
  await new Promise((resolve) => setImmediate(resolve));
  work.start('t2', async () => {});
});

test('background work counts as its tenant’s until it ends, so a tenant restore can wait for it', async () => {
  const work = new BackgroundWork(4);
  let release = () => {};
  work.start('t1', () => new Promise<void>((done) => (release = done)));
  let idle = false;
  void work.activity.idle('t1').then(() => (idle = true));
  await work.activity.idle('t2'); // another tenant has nothing under way
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(idle, false, 'still running');
  release();
  await work.activity.idle('t1');
});
