import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { SiteHeader } from '../components/layout/site-header';
import { paths } from '../config/paths';
import { usePageTitle } from '../lib/page-title';
import styles from './error-page.module.css';

function describe(error: unknown): { status: number | undefined; detail: string } {
  if (isRouteErrorResponse(error))
    return { status: error.status, detail: error.statusText || String(error.data ?? '') };
  if (error instanceof Error) return { status: undefined, detail: error.message };
  return { status: undefined, detail: String(error) };
}

/**
 * Shown for any routing error and for unknown routes (site-spec §2 "Error page"), inside the public layout's
 * header, main and footer.
 */
export function ErrorPage() {
  const { status, detail } = describe(useRouteError());
  usePageTitle(status === 404 ? 'Page not found' : 'Error');
  return (
    <div className={styles.page}>
      <div className={styles.card}>
        <p className={styles.code} aria-hidden="true">
          {status ?? '!'}
        </p>
        <h1>Oops! Something went wrong</h1>
        <p className={styles.lead}>{status === 404 ? 'Page not found' : 'An unexpected error occurred'}</p>
        {detail && <p className={styles.detail}>{detail}</p>}
        <Link className={styles.home} to={paths.home.getHref()}>
          Return to Home
        </Link>
      </div>
    </div>
  );
}

/** The error page where no layout is around it (the layout itself failed, or the playground): with the header. */
export function StandaloneErrorPage() {
  return (
    <>
      <SiteHeader />
      <main id="main">
        <ErrorPage />
      </main>
    </>
  );
}
