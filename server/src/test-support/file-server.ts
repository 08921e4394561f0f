import { after, before } from 'node:test';
import { startTestServer, type TestServer } from './server.js';

/** A tenant's admin as {@link TestServer.registerTenant} answers it. */
export type Tenant = Awaited<ReturnType<TestServer['registerTenant']>>;

/**
 * One test server for a whole file, with one tenant: started in the file's `before` hook and closed in its `after`
 * hook, so its fields are read inside the tests.
 *
 * @example const file = serverForFile(); test('…', async () => { await file.server.call('GET', url, file.admin.token); });
 */
export function serverForFile(overrides: Record<string, string> = {}): { server: TestServer; admin: Tenant } {
  const file = {} as { server: TestServer; admin: Tenant };
  before(async () => {
    file.server = await startTestServer(overrides);
    file.admin = await file.server.registerTenant();
  });
  after(() => file.server.close());
  return file;
}
