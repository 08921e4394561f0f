import nodemailer, { type Transporter } from 'nodemailer';
import type { RelayOutbox } from './relay-outbox.js';

export interface SmtpSettings {
  readonly host: string;
  readonly port: number;
  readonly secure: boolean;
  readonly user: string;
  readonly password: string;
  readonly from: string;
  readonly retryBaseMs: number;
}

export interface RelayLogger {
  warn(obj: object, message: string): void;
  info(obj: object, message: string): void;
}

/**
 * Delivers the outbox by SMTP (nodemailer): due messages are sent in order; a failure reschedules the message with
 * exponential backoff. It polls every second and is kicked as soon as a message is stored.
 */
export class MailRelay {
  readonly #outbox: RelayOutbox;
  readonly #settings: SmtpSettings;
  readonly #log: RelayLogger;
  readonly #transport: Transporter | null;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  constructor(outbox: RelayOutbox, settings: SmtpSettings, log: RelayLogger) {
    this.#outbox = outbox;
    this.#settings = settings;
    this.#log = log;
    this.#transport =
      settings.host === ''
        ? null
        : nodemailer.createTransport({
            host: settings.host,
            port: settings.port,
            secure: settings.secure,
            ...(settings.user !== '' && { auth: { user: settings.user, pass: settings.password } }),
            connectionTimeout: 10_000,
            greetingTimeout: 10_000,
            socketTimeout: 20_000,
            tls: { rejectUnauthorized: false },
          });
    if (!this.#transport)
      log.warn({}, 'SMTP_HOST is not set: messages stay in the outbox until an SMTP server is configured');
  }

  start(): void {
    if (!this.#transport || this.#timer) return;
    this.#timer = setInterval(() => this.kick(), 1000);
    this.#timer.unref();
    this.kick();
  }

  /** Delivers due messages now (coalesced with a run in progress). */
  kick(): void {
    if (!this.#transport || this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#deliver().finally(() => {
      this.#running = null;
      if (this.#again) {
        this.#again = false;
        this.kick();
      }
    });
  }

  /** Stops polling and waits for a delivery in progress, which must record its outcome before the store closes. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#running;
    this.#transport?.close();
  }

  async #deliver(): Promise<void> {
    let due;
    try {
      due = await this.#outbox.due();
    } catch (error) {
      this.#log.warn({ err: (error as Error).message }, 'the outbox could not be read; the next poll tries again');
      return;
    }
    for (const mail of due) {
      if (this.#stopped || !this.#transport) return;
      let sent = false;
      try {
        await this.#transport.sendMail({
          from: this.#settings.from,
          to: mail.to,
          ...(mail.replyTo && { replyTo: mail.replyTo }),
          subject: mail.subject,
          text: mail.body,
        });
        sent = true;
        // False: in cluster mode, another node took over the relay meanwhile; it goes on from the outbox.
        if (!(await this.#outbox.markSent(mail.id))) return;
        this.#log.info({ mail: mail.id, kind: mail.kind }, 'mail delivered');
      } catch (error) {
        if (sent) {
          this.#log.warn({ mail: mail.id, err: (error as Error).message }, 'mail delivered, but not marked sent');
          return;
        }
        await this.#outbox
          .markFailed(mail.id, mail.attempts, (error as Error).message, this.#settings.retryBaseMs)
          .catch(() => false);
        this.#log.warn({ mail: mail.id, err: (error as Error).message }, 'mail delivery failed; it will be retried');
        return; // the server is probably down: wait for the next poll rather than failing every message now
      }
    }
  }
}
