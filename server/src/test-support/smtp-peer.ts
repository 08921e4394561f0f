import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly replyTo: string | undefined;
}

/** A real SMTP server on loopback that keeps what it receives. */
export class SmtpPeer {
  readonly received: ReceivedMail[] = [];
  #server: SMTPServer | null = null;

  async start(port = 0): Promise<number> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, _session, callback) => {
        simpleParser(stream)
          .then((mail) => {
            this.received.push({
              to: Array.isArray(mail.to) ? mail.to.map((t) => t.text).join(', ') : (mail.to?.text ?? ''),
              subject: mail.subject ?? '',
              text: mail.text ?? '',
              replyTo: mail.replyTo?.text,
            });
            callback();
          })
          .catch((error: Error) => callback(error));
      },
    });
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return (server.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Waits until a message matching `predicate` has arrived, and answers it. */
  async waitForMessage(predicate: (mail: ReceivedMail) => boolean, ms = 15_000): Promise<ReceivedMail> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.received.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new TypeError(`no matching message among ${this.received.length} received`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Waits until `count` messages have arrived (or fails after `ms`). */
  async waitFor(count: number, ms = 15_000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + ms;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new TypeError(`expected ${count} messages, received ${this.received.length}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.received;
  }
}
