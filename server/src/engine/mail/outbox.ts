import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Db } from '../storage/database.js';

export interface OutgoingMail {
  readonly kind: string;
  /** Who asked for it (the e-mail address given by the sender), for throttling and blocking. */
  readonly sender: string;
  /** The client address it came from, for throttling. */
  readonly client: string;
  readonly to: string;
  readonly replyTo?: string;
  readonly subject: string;
  readonly body: string;
}

export interface StoredMail extends OutgoingMail {
  readonly id: string;
  readonly attempts: number;
}

/** After this many failed attempts a message is marked failed (it stays in the outbox for an operator). */
export const maxAttempts = 20;

/** A fresh id for a message of the outbox. */
export function newMailId(): string {
  return `mail-${randomUUID()}`;
}

/**
 * The mail outbox: every message is committed here before any delivery attempt, so nothing is lost when the
 * SMTP server is down; the relay delivers due messages and reschedules failures with exponential backoff.
 */
export class Outbox {
  readonly #db: Db;
  readonly #clock: Clock;

  constructor(db: Db, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  /**
   * Stores messages in one transaction, under the ids given (decided by the caller, see newMailId: in cluster mode
   * before the operation is published, so every node stores the same); returns their ids.
   */
  enqueue(messages: readonly (OutgoingMail & { readonly id: string })[]): string[] {
    const now = this.#clock.now();
    const insert = this.#db.prepare(
      `INSERT INTO outbox (id, kind, sender, client, to_address, reply_to, subject, body, status, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
    );
    return this.#db.transaction(() =>
      messages.map((m) => {
        const id = m.id;
        insert.run(id, m.kind, m.sender.toLowerCase(), m.client, m.to, m.replyTo ?? null, m.subject, m.body, now, now);
        return id;
      }),
    )();
  }

  /** Messages stored in the last hour for this sender or this client. */
  recentCount(sender: string, client: string): number {
    const since = this.#clock.now() - 3_600_000;
    return this.#db
      .prepare('SELECT count(*) FROM outbox WHERE (sender = ? OR client = ?) AND created_at > ?')
      .pluck()
      .get(sender.toLowerCase(), client, since) as number;
  }

  due(limit = 50): StoredMail[] {
    const rows = this.#db
      .prepare("SELECT * FROM outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY created_at LIMIT ?")
      .all(this.#clock.now(), limit) as {
      id: string;
      kind: string;
      sender: string;
      client: string;
      to_address: string;
      reply_to: string | null;
      subject: string;
      body: string;
      attempts: number;
    }[];
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      sender: r.sender,
      client: r.client,
      to: r.to_address,
      ...(r.reply_to !== null && { replyTo: r.reply_to }),
      subject: r.subject,
      body: r.body,
      attempts: r.attempts,
    }));
  }

  markSent(id: string): void {
    this.#db
      .prepare("UPDATE outbox SET status = 'sent', sent_at = ?, attempts = attempts + 1 WHERE id = ?")
      .run(this.#clock.now(), id);
  }

  /** Records a failure; the next attempt waits base · 2^attempts (at most 10 minutes). */
  markFailed(id: string, attempts: number, error: string, baseDelayMs: number): void {
    const next = attempts + 1;
    const delay = Math.min(600_000, baseDelayMs * 2 ** attempts);
    this.#db
      .prepare('UPDATE outbox SET attempts = ?, last_error = ?, next_attempt_at = ?, status = ? WHERE id = ?')
      .run(next, error.slice(0, 500), this.#clock.now() + delay, next >= maxAttempts ? 'failed' : 'pending', id);
  }

  status(id: string): { status: string; attempts: number; last_error: string | null } | undefined {
    return this.#db.prepare('SELECT status, attempts, last_error FROM outbox WHERE id = ?').get(id) as
      { status: string; attempts: number; last_error: string | null } | undefined;
  }
}
