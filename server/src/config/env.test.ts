import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from './env.js';

test('defaults are the specification’s', () => {
  const config = loadConfig({});
  assert.equal(config.PORT, 8081);
  assert.equal(config.GRPC_PORT, 50051);
  assert.equal(config.DATA_DIR, './data');
  assert.equal(config.READ_TIMEOUT_MS, 10000);
  assert.equal(config.WRITE_TIMEOUT_MS, 10000);
  assert.equal(config.WORKER_POOL_SIZE, 10);
  assert.equal(config.QUEUE_SIZE, 100);
  assert.equal(config.CACHE_SIZE, 1000);
  assert.equal(config.RATE_LIMIT_RPS, 100);
  assert.equal(config.RATE_LIMIT_BURST, 50);
  assert.equal(config.MAX_CONCURRENT_OPERATIONS, 100);
  assert.equal(config.SIGNED_URL_EXPIRY_S, 3600);
  assert.equal(config.STORAGE_PROVIDER, 'internal');
});

test('values are converted from strings', () => {
  const config = loadConfig({ PORT: '9000', LOG_LEVEL: 'debug', DATA_DIR: '/tmp/x' });
  assert.equal(config.PORT, 9000);
  assert.equal(config.LOG_LEVEL, 'debug');
  assert.equal(config.DATA_DIR, '/tmp/x');
});

test('an invalid value stops start-up with a message naming the variable', () => {
  assert.throws(
    () => loadConfig({ PORT: 'eighty' }),
    (e: unknown) => e instanceof ConfigError && /PORT="eighty" must be an integer/.test(e.message),
  );
  assert.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), /LOG_LEVEL="loud" must be one of fatal, error/);
  assert.throws(() => loadConfig({ RATE_LIMIT_RPS: '0' }), /RATE_LIMIT_RPS="0" must be an integer ≥ 1/);
  assert.throws(() => loadConfig({ JWT_SECRET: 'short' }), /JWT_SECRET must be at least 32 characters/);
  assert.throws(() => loadConfig({ SUPERADMIN_EMAIL: 'a@b.c' }), /set both SUPERADMIN_EMAIL and SUPERADMIN_PASSWORD/);
});

test('STORAGE_PROVIDER=s3 names the S3 setting that is missing or malformed', () => {
  assert.throws(() => loadConfig({ STORAGE_PROVIDER: 's3' }), /STORAGE_PROVIDER=s3 needs S3_BUCKET/);
  const s3 = { STORAGE_PROVIDER: 's3', S3_BUCKET: 'godb-files' };
  assert.throws(() => loadConfig({ ...s3, S3_BUCKET: 'a/b' }), /S3_BUCKET="a\/b" is not a bucket name/);
  assert.throws(
    () => loadConfig({ ...s3, S3_ENDPOINT: 'localhost:8080' }),
    /S3_ENDPOINT="localhost:8080" must be an http/,
  );
  assert.throws(
    () => loadConfig({ ...s3, S3_ACCESS_KEY_ID: 'key' }),
    /set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/,
  );
  assert.throws(() => loadConfig({ ...s3, S3_PREFIX: '/godb/' }), /S3_PREFIX="\/godb\/" must not start with '\/'/);
  assert.throws(
    () => loadConfig({ ...s3, S3_FORCE_PATH_STYLE: 'maybe' }),
    /S3_FORCE_PATH_STYLE="maybe" must be boolean/,
  );
  const config = loadConfig({ ...s3, S3_ENDPOINT: 'http://127.0.0.1:8080', S3_FORCE_PATH_STYLE: 'true' });
  assert.equal(config.S3_FORCE_PATH_STYLE, true);
  assert.equal(config.S3_REGION, 'us-east-1');
});

test('cluster mode (NATS_URL) needs a shared JWT_SECRET and nats:// URLs', () => {
  const secret = 'a-cluster-wide-secret-of-32-characters-or-more';
  assert.throws(() => loadConfig({ NATS_URL: 'nats://127.0.0.1:4222' }), /cluster mode \(NATS_URL\) needs JWT_SECRET/);
  assert.throws(
    () => loadConfig({ NATS_URL: 'nats://a:4222,http://b:4222', JWT_SECRET: secret }),
    /NATS_URL: "http:\/\/b:4222" is not a nats:\/\/host:port URL/,
  );
  const config = loadConfig({ NATS_URL: 'nats://a:4222, nats://b:4222', JWT_SECRET: secret, NODE_ID: 'a' });
  assert.deepEqual(
    [config.NATS_URL, config.NODE_ID, config.NATS_PUBLISH_TIMEOUT_MS],
    ['nats://a:4222, nats://b:4222', 'a', 8000],
  );
});
