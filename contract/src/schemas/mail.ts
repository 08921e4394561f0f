import { Type } from '@sinclair/typebox';
import { inputLimits, Name } from './common.js';

/** Templates of the e-mail service (the site's binary request and registration notice). */
export const mailTemplates = ['binary_request', 'registration_notice'] as const;

/**
 * The e-mail service request, in the shape of the hosted e-mail services the site was designed for, so a hosted
 * service can be configured instead of GoDB's own by changing the site's mail base URL.
 */
export const EmailServiceRequest = Type.Object(
  {
    service_id: Type.Optional(Name()),
    template_id: Type.Optional(Name()),
    user_id: Type.Optional(Name({ description: 'The public key.' })),
    accessToken: Type.Optional(Name()),
    template_params: Type.Optional(
      Type.Unknown({
        description: 'An object: the template’s parameters.',
        maxProperties: 64,
        maxLength: inputLimits.jsonText,
      }),
    ),
  },
  { additionalProperties: false },
);

export const MailHelperRequest = Type.Object(
  {
    from_name: Type.String({ minLength: 1, maxLength: 200 }),
    from_email: Type.String({ format: 'email', maxLength: 254 }),
    subject: Type.String({ minLength: 1, maxLength: 300 }),
    message: Type.String({ minLength: 1, maxLength: 20_000 }),
    phone: Type.Optional(Type.String({ maxLength: 50 })),
  },
  { additionalProperties: false },
);

export const MailAccepted = Type.Object({
  success: Type.Literal(true),
  message: Type.String(),
  message_ids: Type.Array(Type.String(), { description: 'Outbox ids: stored before any delivery attempt.' }),
});
