import { defineOperation } from '../define-operation.js';
import { EmailServiceRequest, MailAccepted } from '../schemas/mail.js';

export const sendEmail = defineOperation({
  id: 'send-email',
  name: 'Send Email (e-mail service)',
  category: 'mail',
  summary: 'The e-mail service: binary requests and registration notices',
  description:
    'Accepts the e-mail service request shape (service_id, template_id, user_id as public key, template_params). Templates: binary_request (from_name, from_company, from_email, from_phone, message: notifies the team and e-mails the requester a signed download link) and registration_notice (to_email, user_name, user_company, message). Every message is stored in the outbox before delivery, so none is lost when SMTP is down.',
  http: { method: 'POST', path: '/api/v1.0/email/send', aliases: [] },
  access: 'public',
  body: EmailServiceRequest,
  success: { status: 200, schema: MailAccepted, description: 'The messages are in the outbox.' },
  errors: ['MAIL_REQUEST_INVALID', 'SENDER_BLOCKED', 'SENDER_THROTTLED'],
  examples: [
    {
      summary: 'Request the binary',
      body: {
        service_id: 'godb',
        template_id: 'binary_request',
        user_id: 'godb-public-key',
        template_params: {
          from_name: 'Ada Lovelace',
          from_company: 'Analytical Engines Ltd',
          from_email: 'ada@example.com',
          from_phone: '+44 20 7946 0000',
          message: 'Evaluating GoDB for our retrieval pipeline.',
        },
      },
      response: { status: 200, body: { success: true, message: 'OK', message_ids: ['mail-1', 'mail-2'] } },
    },
  ],
  playground: {
    hints: {
      service_id: { placeholder: 'godb_service' },
      template_id: { placeholder: 'binary_request or registration_notice' },
      accessToken: { placeholder: 'Optional' },
    },
  },
});
