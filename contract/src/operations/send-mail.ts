import { defineOperation } from '../define-operation.js';
import { MailAccepted, MailHelperRequest } from '../schemas/mail.js';

export const sendMail = defineOperation({
  id: 'send-mail',
  name: 'Send Message (mail helper)',
  category: 'mail',
  summary: 'Contact messages and issue reports to the team',
  description:
    'The mail helper of the contact form and the playground’s issue report: stored in the outbox, then relayed to the team by SMTP with retries. Senders may be throttled (429) or blocked (403).',
  http: { method: 'POST', path: '/api/v1/mail', aliases: [] },
  access: 'public',
  body: MailHelperRequest,
  success: { status: 200, schema: MailAccepted, description: 'The message is in the outbox.' },
  errors: ['SENDER_BLOCKED', 'SENDER_THROTTLED'],
  examples: [
    {
      summary: 'A contact message',
      body: {
        from_name: 'Grace Hopper',
        from_email: 'grace@example.com',
        phone: '+1 555 0100',
        subject: 'Partnership',
        message: 'We would like to talk.',
      },
      response: { status: 200, body: { success: true, message: 'Message received', message_ids: ['mail-3'] } },
    },
  ],
  playground: {
    hints: {
      from_name: { placeholder: 'Ada Lovelace' },
      from_email: { placeholder: 'ada@example.com' },
      subject: { placeholder: 'Question about GoDB' },
      message: { placeholder: 'What would you like to tell us?' },
      phone: { placeholder: 'Optional: +49 30 1234567' },
    },
  },
});
