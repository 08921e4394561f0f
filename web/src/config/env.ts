/**
 * Build-time settings of the website (Vite `VITE_*` variables). The specification does not give the source
 * repository or social addresses, so they are configuration. Without them the site shows no such link: a guessed
 * address would be a dead link (issue #20).
 */
const env = import.meta.env;

/** A configured address, or null when the variable is unset or blank. */
const configured = (value: string | undefined): string | null => (value?.trim() ? value.trim() : null);

const socialLinks: readonly { label: string; href: string }[] = [
  { label: 'X (Twitter)', href: configured(env.VITE_SOCIAL_X_URL) },
  { label: 'LinkedIn', href: configured(env.VITE_SOCIAL_LINKEDIN_URL) },
].flatMap((link) => (link.href ? [{ label: link.label, href: link.href }] : []));

export const siteConfig = {
  repositoryUrl: configured(env.VITE_REPOSITORY_URL),
  socialLinks,
  copyrightYear: 2025,
} as const;

/**
 * The API the site and playground call: VITE_API_BASE_URL, else the server that served the page (GoDB serves
 * both), else the local server on port 8081.
 */
export function apiBaseUrl(): string {
  if (env.VITE_API_BASE_URL) return env.VITE_API_BASE_URL.replace(/\/+$/, '');
  if (typeof window !== 'undefined' && /^https?:$/.test(window.location.protocol)) return window.location.origin;
  return 'http://localhost:8081';
}

/**
 * The e-mail service: GoDB's own endpoint by default, or a hosted service with the same request shape
 * (service ID, template IDs, public key). Left empty, the site logs the problem to the console only.
 */
export const emailServiceConfig = {
  baseUrl: env.VITE_EMAIL_SERVICE_URL ?? '',
  serviceId: env.VITE_EMAIL_SERVICE_ID ?? 'godb',
  publicKey: env.VITE_EMAIL_PUBLIC_KEY ?? 'godb-public-key',
  templates: {
    binaryRequest: env.VITE_EMAIL_TEMPLATE_BINARY ?? 'binary_request',
    registration: env.VITE_EMAIL_TEMPLATE_REGISTRATION ?? 'registration_notice',
  },
} as const;
