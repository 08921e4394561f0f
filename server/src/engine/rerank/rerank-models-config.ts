import type { HttpRerankerConfig } from './http-reranker.js';

/**
 * Parses RERANK_MODELS: `name=tei:<base URL>` or `name=cohere:<base URL>`, comma-separated. The URLs come only from
 * the server's configuration — a request names a model, never an address (no request can make the server call an
 * arbitrary URL). A malformed entry throws, naming it, so the server does not start half-configured.
 *
 * @example parseRerankModels('bge=tei:http://127.0.0.1:8080,rerank-v3.5=cohere:https://api.cohere.com', undefined)
 */
export function parseRerankModels(raw: string, apiKey: string | undefined): HttpRerankerConfig[] {
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const seen = new Set<string>();
  return entries.map((entry) => {
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
    return { name, protocol, baseUrl: url, apiKey };
  });
}
