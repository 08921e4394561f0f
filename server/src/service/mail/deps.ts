import type { Outbox } from '../../engine/mail/outbox.js';
import type { DownloadLinks } from './download-links.js';

export interface MailSettings {
  readonly teamAddress: string;
  readonly serviceId: string;
  readonly publicKey: string;
  readonly blockedSenders: readonly string[];
  readonly maxPerHour: number;
  readonly releaseDir: string;
  readonly releaseFile: string;
}

export interface MailDeps {
  readonly outbox: Outbox;
  readonly links: DownloadLinks;
  readonly mail: MailSettings;
  /** Asks the relay to deliver now rather than at its next poll. */
  readonly kickRelay: () => void;
}
