/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_REPOSITORY_URL?: string;
  readonly VITE_SOCIAL_X_URL?: string;
  readonly VITE_SOCIAL_LINKEDIN_URL?: string;
  readonly VITE_API_BASE_URL?: string;
  readonly VITE_EMAIL_SERVICE_URL?: string;
  readonly VITE_EMAIL_SERVICE_ID?: string;
  readonly VITE_EMAIL_PUBLIC_KEY?: string;
  readonly VITE_EMAIL_TEMPLATE_BINARY?: string;
  readonly VITE_EMAIL_TEMPLATE_REGISTRATION?: string;
}
