import { SiteHeader } from '../components/layout/site-header';
import { AuthScreen } from '../features/auth/auth-screen';
import { PlaygroundPage } from '../features/playground/playground-page';
import { sessionNotice, useAuthToken } from '../lib/auth-token';

/** /playground: the playground when a token is stored, the login/register screen otherwise. */
export function PlaygroundRoute() {
  const token = useAuthToken();
  if (token) return <PlaygroundPage token={token} />;
  return (
    <>
      <SiteHeader />
      <main id="main">
        <AuthScreen notice={sessionNotice.peek()} />
      </main>
    </>
  );
}
