import type { HttpRerankerConfig } from './http-reranker.js';

/** RERANK_API_KEY and the RERANK_MODELS entries it is sent to (RERANK_API_KEY_MODELS), as configured. */
export interface RerankKey {
  readonly apiKey: string;
  /** Comma-separated names of RERANK_MODELS entries. */
  readonly models: string;
}

const namesOf = (raw: string) =>
  raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');

/**
 * Parses RERANK_MODELS: `name=tei:<base URL>` or `name=cohere:<base URL>`, comma-separated. The URLs come only from
 * the server's configuration — a request names a model, never an address (no request can make the server call an
 * arbitrary URL). RERANK_API_KEY goes only to the entries RERANK_API_KEY_MODELS names: a key for one provider must
 * not reach another (a self-hosted TEI beside Cohere). A malformed entry, a key with no model to receive it, or a
 * named model that is not an entry throws, naming it, so the server does not start half-configured.
 *
 * @example parseRerankModels('bge=tei:http://127.0.0.1:8080,rerank-v3.5=cohere:https://api.cohere.com', { apiKey: 'k', models: 'rerank-v3.5' })
 */
export function parseRerankModels(raw: string, key: RerankKey = { apiKey: '', models: '' }): HttpRerankerConfig[] {
  const keyed = new Set(namesOf(key.models));
  if (key.apiKey !== '' && keyed.size === 0)
    throw new Error(
      'RERANK_API_KEY is set but RERANK_API_KEY_MODELS names no model: list the RERANK_MODELS entries that receive it (it is sent to no other).',
    );
  if (key.apiKey === '' && keyed.size > 0)
    throw new Error('RERANK_API_KEY_MODELS names models but RERANK_API_KEY is empty: set the key or clear the list.');
  const seen = new Set<string>();
  const configs = namesOf(raw).map((entry): HttpRerankerConfig => {
    const match = /^([A-Za-z0-9][A-Za-z0-9._-]*)=(tei|cohere):(https?:\/\/\S+)$/.exec(entry);
    if (!match)
      throw new Error(
        `RERANK_MODELS: ${JSON.stringify(entry)} is not name=tei:<http(s) URL> or name=cohere:<http(s) URL>.`,
      );
    const [, name, protocol, url] = match as unknown as [string, string, 'tei' | 'cohere', string];
    try {
      new URL(url);
    } catch {
      throw new Error(`RERANK_MODELS: ${JSON.stringify(url)} (for ${name}) is not a URL.`);
    }
    if (seen.has(name)) throw new Error(`RERANK_MODELS names ${name} twice.`);
    seen.add(name);
    return { name, protocol, baseUrl: url, ...(keyed.has(name) && { apiKey: key.apiKey }) };
  });
  const unknown = [...keyed].filter((name) => !seen.has(name));
  if (unknown.length > 0)
    throw new Error(`RERANK_API_KEY_MODELS names ${unknown.join(', ')}, which RERANK_MODELS does not configure.`);
  return configs;
}
