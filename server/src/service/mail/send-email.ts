import { createError, emailRegExp, emailRuleMessage, mailTemplates } from '@godb/contract';
import type { OutgoingMail } from '../../engine/mail/outbox.js';
import type { UseCaseOf } from '../context.js';
import type { MailDeps } from './deps.js';
import { checkSender } from './sender-policy.js';

function param(params: Record<string, unknown>, name: string, required: boolean): string {
  const value = params[name];
  if (value === undefined || value === null || String(value).trim() === '') {
    if (required)
      throw createError(
        'MAIL_REQUEST_INVALID',
        { reason: `template_params.${name} is required` },
        { field: `body.template_params.${name}` },
      );
    return '';
  }
  return String(value).trim();
}

/**
 * The e-mail service endpoint. binary_request: the team is told, and the requester receives a signed link to the
 * release; registration_notice: the new user is welcomed and the team told.
 */
export const sendEmailUseCase =
  (deps: MailDeps): UseCaseOf<'send-email'> =>
  async ({ body }, ctx) => {
    if (!body.service_id || !body.template_id || !body.user_id) {
      throw createError('MAIL_REQUEST_INVALID', { reason: 'The service ID, template ID and public key are required' });
    }
    if (
      typeof body.template_params !== 'object' ||
      body.template_params === null ||
      Array.isArray(body.template_params)
    ) {
      throw createError(
        'MAIL_REQUEST_INVALID',
        { reason: 'The template params must be an object' },
        { field: 'body.template_params' },
      );
    }
    if (body.service_id !== deps.mail.serviceId)
      throw createError('MAIL_REQUEST_INVALID', { reason: 'The service ID is invalid' }, { field: 'body.service_id' });
    if (body.user_id !== deps.mail.publicKey)
      throw createError('MAIL_REQUEST_INVALID', { reason: 'The Public Key is invalid' }, { field: 'body.user_id' });
    if (!(mailTemplates as readonly string[]).includes(body.template_id)) {
      throw createError(
        'MAIL_REQUEST_INVALID',
        { reason: `The template ID is invalid (use ${mailTemplates.join(' or ')})` },
        { field: 'body.template_id' },
      );
    }
    const params = body.template_params as Record<string, unknown>;
    const client = ctx.clientAddress ?? 'unknown';
    let messages: OutgoingMail[];
    if (body.template_id === 'binary_request') {
      const email = param(params, 'from_email', true);
      if (!emailRegExp.test(email))
        throw createError(
          'MAIL_REQUEST_INVALID',
          { reason: `template_params.from_email ${emailRuleMessage}` },
          { field: 'body.template_params.from_email' },
        );
      const name = param(params, 'from_name', true);
      const company = param(params, 'from_company', true);
      const phone = param(params, 'from_phone', false);
      const note = param(params, 'message', false);
      checkSender(deps, email, client);
      const { url, expires } = deps.links.link(deps.mail.releaseFile);
      messages = [
        {
          kind: 'binary-request',
          sender: email,
          client,
          to: deps.mail.teamAddress,
          replyTo: email,
          subject: `Binary request - ${name} (${company})`,
          body: [
            `Name: ${name}`,
            `Company: ${company}`,
            `Email: ${email}`,
            `Phone: ${phone || '-'}`,
            '',
            note || '(no note)',
          ].join('\n'),
        },
        {
          kind: 'binary-link',
          sender: email,
          client,
          to: email,
          subject: 'Your GoDB download link',
          body: [
            `Hello ${name},`,
            '',
            'Thank you for your interest in GoDB. Download the release here:',
            url,
            '',
            `The link is valid until ${new Date(expires * 1000).toUTCString()}. Unpack it and run: node server/dist/main.js`,
            'The binary is provided for evaluation only; see the Terms of Service.',
          ].join('\n'),
        },
      ];
    } else {
      const to = param(params, 'to_email', true);
      if (!emailRegExp.test(to))
        throw createError(
          'MAIL_REQUEST_INVALID',
          { reason: `template_params.to_email ${emailRuleMessage}` },
          { field: 'body.template_params.to_email' },
        );
      const name = param(params, 'user_name', false) || to;
      const company = param(params, 'user_company', false);
      checkSender(deps, to, client);
      messages = [
        {
          kind: 'registration',
          sender: to,
          client,
          to,
          subject: 'Welcome to GoDB',
          body: [
            `Hello ${name},`,
            '',
            'Your GoDB playground account is ready: log in at /playground.',
            param(params, 'message', false),
          ].join('\n'),
        },
        {
          kind: 'registration-notice',
          sender: to,
          client,
          to: deps.mail.teamAddress,
          subject: `New registration - ${name}${company ? ` (${company})` : ''}`,
          body: [`Name: ${name}`, `Company: ${company || '-'}`, `Email: ${to}`].join('\n'),
        },
      ];
    }
    const ids = await deps.enqueue(messages);
    deps.kickRelay();
    return { success: true, message: 'OK', message_ids: ids };
  };
