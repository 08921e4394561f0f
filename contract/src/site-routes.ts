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

/**
 * The documentation's section slugs (site-spec §4), each served at /documentation/<slug>. Listed here so the
 * server answers an unknown section with 404 like any unknown page; the web's doc-sections.ts must list the same.
 */
export const documentationSlugs = [
  'introduction',
  'system-architecture',
  'core-features',
  'technical-implementation',
  'api-reference',
  'grpc-reference',
  'client-libraries',
  'performance',
  'use-cases',
  'deployment-guide',
  'comparison',
] as const;

export type DocumentationSlug = (typeof documentationSlugs)[number];

/**
 * True when a browser path is one of the site's pages, documentation sections included.
 *
 * @example isSitePath('/documentation/core-features') // true; isSitePath('/documentation/nope') // false
 */
export function isSitePath(pathname: string): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  if ((Object.values(sitePaths) as string[]).includes(path)) return true;
  const section = /^\/documentation\/([^/]+)$/.exec(path)?.[1];
  return section !== undefined && (documentationSlugs as readonly string[]).includes(section);
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
  '/collections',
  '/qdrant',
] as const;

export function isApiPath(pathname: string): boolean {
  return apiPrefixes.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}
