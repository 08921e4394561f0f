import nodemailer, { type Transporter } from 'nodemailer';
import type { Outbox } from '../../engine/mail/outbox.js';

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
  readonly #outbox: Outbox;
  readonly #settings: SmtpSettings;
  readonly #log: RelayLogger;
  readonly #transport: Transporter | null;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  constructor(outbox: Outbox, settings: SmtpSettings, log: RelayLogger) {
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
    for (const mail of this.#outbox.due()) {
      if (this.#stopped || !this.#transport) return;
      try {
        await this.#transport.sendMail({
          from: this.#settings.from,
          to: mail.to,
          ...(mail.replyTo && { replyTo: mail.replyTo }),
          subject: mail.subject,
          text: mail.body,
        });
        this.#outbox.markSent(mail.id);
        this.#log.info({ mail: mail.id, kind: mail.kind }, 'mail delivered');
      } catch (error) {
        this.#outbox.markFailed(mail.id, mail.attempts, (error as Error).message, this.#settings.retryBaseMs);
        this.#log.warn({ mail: mail.id, err: (error as Error).message }, 'mail delivery failed; it will be retried');
        return; // the server is probably down: wait for the next poll rather than failing every message now
      }
    }
  }
}
