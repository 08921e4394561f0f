import type { UseCaseOf } from '../context.js';
import type { MailDeps } from './deps.js';
import { checkSender } from './sender-policy.js';

/** The mail helper: contact messages and issue reports, to the team, stored before delivery. */
export const sendMailUseCase =
  (deps: MailDeps): UseCaseOf<'send-mail'> =>
  async ({ body }, ctx) => {
    checkSender(deps, body.from_email, ctx.clientAddress ?? 'unknown');
    const lines = [
      `From: ${body.from_name} <${body.from_email}>`,
      ...(body.phone ? [`Phone: ${body.phone}`] : []),
      '',
      body.message,
    ];
    const ids = await deps.enqueue([
      {
        kind: 'message',
        sender: body.from_email,
        client: ctx.clientAddress ?? 'unknown',
        to: deps.mail.teamAddress,
        replyTo: body.from_email,
        subject: body.subject,
        body: lines.join('\n'),
      },
    ]);
    deps.kickRelay();
    return { success: true, message: 'Message received', message_ids: ids };
  };
