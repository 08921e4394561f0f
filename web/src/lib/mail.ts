import { apiBaseUrl, emailServiceConfig } from '../config/env';
import { apiRequest } from './api-client';

/**
 * The mail helper (contact messages, issue reports), through the site's one fetcher: returns a success flag, never
 * throws.
 *
 * @example await sendMail({ from_name: 'Ada', from_email: 'ada@example.com', subject: 'Hi', message: '…' })
 */
export async function sendMail(params: {
  from_name: string;
  from_email: string;
  subject: string;
  message: string;
  phone?: string;
}): Promise<{ success: boolean }> {
  try {
    // The path is written out: the pages that send mail (contact) do not load the whole catalogue for it.
    return { success: (await apiRequest('POST', '/api/v1/mail', { body: params })).ok };
  } catch {
    return { success: false }; // nothing answered (NetworkFailure)
  }
}

/**
 * The e-mail service (binary requests, registration notices). A missing configuration is only logged to the
 * console, as the specification says; the caller shows its own failure message.
 */
export async function sendEmail(
  templateId: string,
  templateParams: Record<string, string>,
): Promise<{ success: boolean }> {
  const { serviceId, publicKey } = emailServiceConfig;
  if (!serviceId || !templateId || !publicKey) {
    console.error(
      'E-mail service is not configured: set VITE_EMAIL_SERVICE_ID, the template IDs and VITE_EMAIL_PUBLIC_KEY.',
    );
    return { success: false };
  }
  const res = await fetch(`${emailServiceConfig.baseUrl || apiBaseUrl()}/api/v1.0/email/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      service_id: serviceId,
      template_id: templateId,
      user_id: publicKey,
      template_params: templateParams,
    }),
  });
  return { success: res.ok };
}
