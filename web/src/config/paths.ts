import { sitePaths } from '@godb/contract/site-routes';

/** Routes as data: every link of the site goes through here. */
export const paths = {
  home: { path: sitePaths.home, getHref: () => sitePaths.home },
  documentation: {
    path: sitePaths.documentation,
    getHref: (section?: string) => (section ? `${sitePaths.documentation}/${section}` : sitePaths.documentation),
  },
  whitepaper: { path: sitePaths.whitepaper, getHref: () => sitePaths.whitepaper },
  playground: { path: sitePaths.playground, getHref: () => sitePaths.playground },
  contact: { path: sitePaths.contact, getHref: () => sitePaths.contact },
  privacyPolicy: { path: sitePaths.privacyPolicy, getHref: () => sitePaths.privacyPolicy },
  termsOfService: { path: sitePaths.termsOfService, getHref: () => sitePaths.termsOfService },
} as const;
