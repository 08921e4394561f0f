import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogDestination } from './log-destination.js';

/** A stream whose reader has stopped: it accepts writes and never completes one. */
function stalled(): Writable {
  return new Writable({ highWaterMark: 16, write: () => undefined });
}

/** A stream that collects what reaches it, completing each write when `release()` is called. */
function gated() {
  const written: string[] = [];
  const pending: (() => void)[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      pending.push(done);
    },
  });
  const release = () => {
    while (pending.length > 0) pending.shift()!();
  };
  return { stream, written, release };
}

test('a reader that stops reading costs bounded memory: lines past the bound are dropped, never queued', () => {
  const stream = stalled();
  const log = createLogDestination(stream, { maxQueuedBytes: 1000 });
  for (let i = 0; i < 1000; i += 1) log.write(`{"msg":"line ${i}"}\n`);
  assert.ok(stream.writableLength < 1100, `queued ${stream.writableLength} bytes`);
  assert.ok(log.dropped > 900);
});

test('once the reader catches up, the log says how many lines it dropped', async () => {
  const { stream, written, release } = gated();
  const log = createLogDestination(stream, { maxQueuedBytes: 40, now: () => 7 });
  log.write('{"msg":"first line that fills the queue"}\n');
  log.write('{"msg":"dropped"}\n');
  log.write('{"msg":"dropped too"}\n');
  release();
  await new Promise((resolve) => setImmediate(resolve));
  release();
  log.write('{"msg":"after"}\n');
  release();
  assert.deepEqual(written.slice(1), [
    '{"level":40,"time":7,"msg":"2 log lines dropped: the log reader fell behind"}\n',
    '{"msg":"after"}\n',
  ]);
});

test('a stream that breaks (EPIPE) stops being written to, is reported once, and never throws', async () => {
  const broken: Error[] = [];
  let attempts = 0;
  const stream = new Writable({
    write(_chunk, _encoding, done) {
      attempts += 1;
      done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    },
  });
  const log = createLogDestination(stream, { onBroken: (error) => broken.push(error) });
  log.write('one\n');
  await new Promise((resolve) => setImmediate(resolve));
  for (let i = 0; i < 10; i += 1) assert.equal(log.write('more\n'), true);
  assert.equal(attempts, 1);
  assert.equal(broken.length, 1);
  assert.equal((log.brokenBy as NodeJS.ErrnoException | null)?.code, 'EPIPE');
  await log.drain(60_000); // a broken stream has nothing to wait for
});

test('a destination that throws on write (a file on a full disk) is treated as broken', () => {
  const stream = new Writable({ write: () => undefined });
  stream.write = () => {
    throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
  };
  const log = createLogDestination(stream);
  assert.equal(log.write('line\n'), true);
  assert.equal((log.brokenBy as NodeJS.ErrnoException | null)?.code, 'ENOSPC');
});

test('drain() gives up at its deadline when the reader never reads', async () => {
  const log = createLogDestination(stalled());
  log.write('waiting for ever\n');
  // drain()'s own timer does not hold the process open (a stop must not wait for it); this test's does.
  const hangDetector = setTimeout(() => assert.fail('drain() did not give up'), 60_000);
  await log.drain(10);
  clearTimeout(hangDetector);
});
