import { Outlet } from 'react-router';
import { BetaBanner } from './beta-banner';
import { SiteFooter } from './site-footer';
import { SiteHeader } from './site-header';

/** Chrome of every public page: beta banner, sticky header, the page, footer. */
export function PublicLayout() {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <BetaBanner />
      <SiteHeader />
      <main id="main">
        <Outlet />
      </main>
      <SiteFooter />
    </>
  );
}
