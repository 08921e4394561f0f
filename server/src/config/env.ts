import { ConfigSchema } from '@godb/contract';
import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parseRemoteModels, type RemoteModel } from '../engine/embeddings/remote-provider.js';

export { ConfigSchema };
export type Config = Static<typeof ConfigSchema>;

/** As short as JWT_SECRET may be (a generated one has 64 characters). */
export const jwtSecretMinLength = 32;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function describeProblem(name: string, schema: TSchema, raw: string): string {
  const expected =
    'anyOf' in schema
      ? `one of ${(schema.anyOf as { const: string }[]).map((s) => s.const).join(', ')}`
      : schema.type === 'integer'
        ? `an integer${schema.minimum !== undefined ? ` ≥ ${String(schema.minimum)}` : ''}`
        : String(schema.type);
  return `Invalid configuration: ${name}=${JSON.stringify(raw)} must be ${expected}.`;
}

/** The S3_* settings that STORAGE_PROVIDER=s3 needs; the bucket itself is checked at start-up (config/storage.ts). */
function checkS3(config: Config): void {
  if (config.S3_BUCKET === '') {
    throw new ConfigError(
      'Invalid configuration: STORAGE_PROVIDER=s3 needs S3_BUCKET, the bucket that keeps the files (and S3_ENDPOINT for a store other than AWS).',
    );
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{1,254}$/.test(config.S3_BUCKET)) {
    throw new ConfigError(
      `Invalid configuration: S3_BUCKET=${JSON.stringify(config.S3_BUCKET)} is not a bucket name (letters, digits, '.', '-' and '_', 2 to 255 characters).`,
    );
  }
  if (config.S3_ENDPOINT !== '') {
    let url: URL | null = null;
    try {
      url = new URL(config.S3_ENDPOINT);
    } catch {
      url = null;
    }
    if (!url || !/^https?:$/.test(url.protocol)) {
      throw new ConfigError(
        `Invalid configuration: S3_ENDPOINT=${JSON.stringify(config.S3_ENDPOINT)} must be an http:// or https:// URL, e.g. http://127.0.0.1:8080.`,
      );
    }
  }
  if ((config.S3_ACCESS_KEY_ID === '') !== (config.S3_SECRET_ACCESS_KEY === '')) {
    throw new ConfigError(
      'Invalid configuration: set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (to use the AWS SDK’s default credentials).',
    );
  }
  if (config.S3_PREFIX.startsWith('/')) {
    throw new ConfigError(
      `Invalid configuration: S3_PREFIX=${JSON.stringify(config.S3_PREFIX)} must not start with '/' (keys are relative to the bucket).`,
    );
  }
}

/**
 * Parses the environment once. Throws {@link ConfigError} naming the first invalid variable.
 *
 * @example loadConfig({ PORT: '9000' }).PORT // 9000
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(ConfigSchema.properties)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw));
  for (const [name, schema] of Object.entries(ConfigSchema.properties) as [string, TSchema][]) {
    const value = (converted as Record<string, unknown>)[name];
    if (!Value.Check(schema, value)) throw new ConfigError(describeProblem(name, schema, String(env[name])));
  }
  const config = converted as Config;
  if (config.STORAGE_PROVIDER === 's3') checkS3(config);
  if (config.JWT_SECRET !== '' && config.JWT_SECRET.length < jwtSecretMinLength) {
    throw new ConfigError(
      `Invalid configuration: JWT_SECRET must be at least ${jwtSecretMinLength} characters (or empty to generate one).`,
    );
  }
  if (config.NATS_URL !== '' && config.JWT_SECRET === '') {
    throw new ConfigError(
      'Invalid configuration: cluster mode (NATS_URL) needs JWT_SECRET, the same on every node, so that a token from one node is accepted by all.',
    );
  }
  const badNatsUrl = natsUrlsOf(config).find((url) => !/^(nats|tls):\/\/[^/\s]+$/.test(url));
  if (badNatsUrl !== undefined) {
    throw new ConfigError(`Invalid configuration: NATS_URL: "${badNatsUrl}" is not a nats://host:port URL.`);
  }
  if ((config.SUPERADMIN_EMAIL === '') !== (config.SUPERADMIN_PASSWORD === '')) {
    throw new ConfigError('Invalid configuration: set both SUPERADMIN_EMAIL and SUPERADMIN_PASSWORD, or neither.');
  }
  if (config.SUPERADMIN_PASSWORD !== '' && config.SUPERADMIN_PASSWORD.length < 8) {
    throw new ConfigError('Invalid configuration: SUPERADMIN_PASSWORD must be at least 8 characters.');
  }
  for (const [models, base] of [
    ['OPENAI_EMBEDDING_MODELS', 'OPENAI_BASE_URL'],
    ['OLLAMA_EMBEDDING_MODELS', 'OLLAMA_BASE_URL'],
  ] as const) {
    if (config[models] === '') continue;
    if (config[base] === '') throw new ConfigError(`Invalid configuration: ${models} is set but ${base} is empty.`);
    const parsed = parseRemoteModels(config[models], 'openai', config[base]);
    if (typeof parsed === 'string') throw new ConfigError(`Invalid configuration: ${models}: ${parsed}.`);
  }
  return config;
}

/** The remote embedding models configured, in the engine's terms. */
/** The NATS servers of cluster mode (empty: one embedded node). */
export function natsUrlsOf(config: Pick<Config, 'NATS_URL'>): string[] {
  return config.NATS_URL.split(',')
    .map((url) => url.trim())
    .filter(Boolean);
}

export function remoteModelsOf(config: Config): RemoteModel[] {
  const openai = parseRemoteModels(
    config.OPENAI_EMBEDDING_MODELS,
    'openai',
    config.OPENAI_BASE_URL,
    config.OPENAI_API_KEY || undefined,
  );
  const ollama = parseRemoteModels(config.OLLAMA_EMBEDDING_MODELS, 'ollama', config.OLLAMA_BASE_URL);
  return [...(typeof openai === 'string' ? [] : openai), ...(typeof ollama === 'string' ? [] : ollama)];
}
