import { startTestServer, type TestServer } from '../../../../server/src/test-support/server.js';

export interface ListeningServer {
  readonly server: TestServer;
  /** http://127.0.0.1:<port>: a real port, since the client speaks HTTP through fetch. */
  readonly url: string;
  /** The admin of a fresh tenant (unless `register: false`). */
  readonly admin: Awaited<ReturnType<TestServer['registerTenant']>>;
  close(): Promise<void>;
}

/** A real GoDB server (real SQLite in a temporary folder) listening on a free loopback port. */
export async function startListeningServer(
  overrides: Record<string, string> = {},
  { register = true } = {},
): Promise<ListeningServer> {
  const server = await startTestServer(overrides);
  const admin = register
    ? await server.registerTenant()
    : { token: '', userId: '', tenantId: '', email: '', password: '' };
  const url = await server.listen();
  return { server, url, admin, close: () => server.close() };
}
