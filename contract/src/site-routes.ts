/**
 * The public website's routes (site-spec §2). Shared by the web router and the server, which answers these
 * with the single-page app and anything else outside the API with the app's error page and status 404.
 */
export const sitePaths = {
  home: '/',
  documentation: '/documentation',
  whitepaper: '/whitepaper',
  playground: '/playground',
  contact: '/contact',
  privacyPolicy: '/privacy-policy',
  termsOfService: '/terms-of-service',
} as const;

export type SitePathName = keyof typeof sitePaths;

/** True when a browser path is one of the site's pages (documentation sections are /documentation/<section>). */
export function isSitePath(pathname: string): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  if ((Object.values(sitePaths) as string[]).includes(path)) return true;
  return /^\/documentation\/[a-z0-9-]+$/.test(path);
}

/** Path prefixes that belong to the API: never answered with HTML. */
export const apiPrefixes = [
  '/api',
  '/auth',
  '/documents',
  '/embeddings',
  '/search',
  '/graph',
  '/indexes',
  '/jobs',
] as const;

export function isApiPath(pathname: string): boolean {
  return apiPrefixes.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}
