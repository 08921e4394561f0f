import { createError } from '@godb/contract';
import type { MailDeps } from './deps.js';

/** Refuses blocked senders (403) and throttles senders and clients over the hourly limit (429). */
export function checkSender(deps: MailDeps, sender: string, client: string): void {
  const address = sender.trim().toLowerCase();
  const domain = address.slice(address.indexOf('@'));
  if (deps.mail.blockedSenders.some((b) => b === address || (b.startsWith('@') && b === domain))) {
    throw createError('SENDER_BLOCKED', { sender: address });
  }
  const count = deps.outbox.recentCount(address, client);
  if (count >= deps.mail.maxPerHour) {
    throw createError(
      'SENDER_THROTTLED',
      { sender: address, count, max: deps.mail.maxPerHour, retry_after: 3600 },
      { details: { retry_after: 3600 } },
    );
  }
}
