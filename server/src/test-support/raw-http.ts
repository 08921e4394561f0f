import { request as httpRequest } from 'node:http';

export interface RawAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/**
 * One request over a real socket with the path exactly as given: no URL normalisation on the way (app.inject()
 * turns `/api/../x` into `/x`, as a browser would; an attacker's client does not).
 */
export function rawRequest(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers ?? {} },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? '', body }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}
