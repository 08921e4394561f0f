import { createBrowserRouter, data, type RouteObject } from 'react-router';
import { PublicLayout } from '../components/layout/public-layout';
import { paths } from '../config/paths';
import { docSections } from '../features/docs/doc-sections';
import { ErrorPage, StandaloneErrorPage } from './error-page';
import { RouteLoading } from './route-loading';

/**
 * Routes as data (site-spec §2). Pages are code-split; every route has the error page as its boundary, and
 * anything else is a 404 rendered by the same page inside the site's header and footer. A route that loads code
 * or data has a HydrateFallback: while the first page's code arrives, the layout is shown around an empty page
 * (without one, React Router renders nothing and warns on every page).
 */
const pages: RouteObject[] = [
  {
    path: paths.home.path,
    errorElement: <ErrorPage />,
    lazy: async () => ({ Component: (await import('../features/marketing/home-page')).HomePage }),
  },
  {
    path: paths.whitepaper.path,
    errorElement: <ErrorPage />,
    lazy: async () => ({ Component: (await import('../features/whitepaper/whitepaper-page')).WhitepaperPage }),
  },
  {
    path: paths.contact.path,
    errorElement: <ErrorPage />,
    lazy: async () => ({ Component: (await import('../features/contact/contact-page')).ContactPage }),
  },
  {
    path: paths.privacyPolicy.path,
    errorElement: <ErrorPage />,
    lazy: async () => ({ Component: (await import('../features/legal/privacy-policy-page')).PrivacyPolicyPage }),
  },
  {
    path: paths.termsOfService.path,
    errorElement: <ErrorPage />,
    lazy: async () => ({ Component: (await import('../features/legal/terms-of-service-page')).TermsOfServicePage }),
  },
  {
    path: `${paths.documentation.path}/:section?`,
    errorElement: <ErrorPage />,
    // A section that does not exist is a missing page, not the introduction under a wrong address.
    loader: ({ params }) => {
      if (params.section !== undefined && !docSections.some((s) => s.slug === params.section)) {
        throw data('Not Found', { status: 404, statusText: `Documentation section "${params.section}" not found` });
      }
      return null;
    },
    lazy: async () => ({ Component: (await import('../features/docs/documentation-page')).DocumentationPage }),
  },
  {
    path: '*',
    loader: () => {
      throw data('Not Found', { status: 404, statusText: 'Not Found' });
    },
    errorElement: <ErrorPage />,
  },
];

export const routes: RouteObject[] = [
  {
    element: <PublicLayout />,
    errorElement: <StandaloneErrorPage />,
    children: pages.map((page) => ({ ...page, HydrateFallback: RouteLoading })),
  },
  {
    path: paths.playground.path,
    errorElement: <StandaloneErrorPage />,
    HydrateFallback: RouteLoading,
    lazy: async () => ({ Component: (await import('./playground-route')).PlaygroundRoute }),
  },
];

export const createRouter = () => createBrowserRouter(routes);
