import { createHmac, timingSafeEqual } from 'node:crypto';
import { createError } from '@godb/contract';

/** HMAC-signed, expiring links to release files. */
export class DownloadLinks {
  readonly #key: Buffer;
  readonly #ttlSeconds: number;
  readonly #baseUrl: string;
  readonly #now: () => number;

  constructor(secret: string, ttlSeconds: number, baseUrl: string, now: () => number) {
    this.#key = createHmac('sha256', secret).update('godb-download-links').digest();
    this.#ttlSeconds = ttlSeconds;
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
    this.#now = now;
  }

  #signature(file: string, expires: number): string {
    return createHmac('sha256', this.#key).update(`${file}\n${expires}`).digest('base64url');
  }

  /** A link to `file` valid for the configured lifetime. */
  link(file: string): { url: string; expires: number } {
    const expires = Math.floor(this.#now() / 1000) + this.#ttlSeconds;
    return {
      url: `${this.#baseUrl}/api/v1/downloads/${encodeURIComponent(file)}?expires=${expires}&signature=${this.#signature(file, expires)}`,
      expires,
    };
  }

  /** Throws DOWNLOAD_LINK_INVALID when the link was altered or has expired. */
  verify(file: string, expires: number, signature: string): void {
    const expected = Buffer.from(this.#signature(file, expires));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw createError('DOWNLOAD_LINK_INVALID', {
        reason: 'is not valid (it was altered or belongs to another file)',
      });
    }
    if (expires < Math.floor(this.#now() / 1000)) throw createError('DOWNLOAD_LINK_INVALID', { reason: 'has expired' });
  }
}
