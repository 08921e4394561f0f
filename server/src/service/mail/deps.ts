import type { Outbox } from '../../engine/mail/outbox.js';
import type { DownloadLinks } from './download-links.js';
import type { EnqueueMail } from './relay-outbox.js';
import type { ReleaseArtifact } from './release-artifact.js';

export interface MailSettings {
  readonly teamAddress: string;
  readonly serviceId: string;
  readonly publicKey: string;
  readonly blockedSenders: readonly string[];
  readonly maxPerHour: number;
  readonly releaseFile: string;
}

export interface MailDeps {
  /** The outbox, read (senders' recent messages); its writes go through `enqueue`. */
  readonly outbox: Outbox;
  /** Queues messages (cluster mode: through the replicated log). */
  readonly enqueue: EnqueueMail;
  readonly links: DownloadLinks;
  /** The release tarball the links point at (RELEASE_DIR), built on its first download when missing. */
  readonly release: ReleaseArtifact;
  readonly mail: MailSettings;
  /** Asks the relay to deliver now rather than at its next poll. */
  readonly kickRelay: () => void;
}
