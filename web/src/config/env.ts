/**
 * Build-time settings of the website (Vite `VITE_*` variables). The specification does not give the source
 * repository or social addresses, so they are configuration; the defaults point at the project's public home.
 */
export const siteConfig = {
  repositoryUrl: import.meta.env.VITE_REPOSITORY_URL ?? 'https://github.com/godb-project/godb',
  socialLinks: [
    { label: 'X (Twitter)', href: import.meta.env.VITE_SOCIAL_X_URL ?? 'https://x.com/godb_project' },
    {
      label: 'LinkedIn',
      href: import.meta.env.VITE_SOCIAL_LINKEDIN_URL ?? 'https://www.linkedin.com/company/godb-project',
    },
  ],
  copyrightYear: 2025,
} as const;
