import { importNdjson, type ImportOptions, type ImportSource } from './ndjson.js';
import { operationTable } from './operations.generated.js';
import { Transport, type TransportOptions } from './transport.js';
import type { CallOptions, GroupMethods, GroupName, Output, TableEntry } from './types.js';

export type ClientOptions = TransportOptions;

type Input = Readonly<Record<string, unknown>>;

/**
 * A GoDB client: one typed method per API operation, grouped by category (`client.documents.add`,
 * `client.search.hybrid`, `client.collections.create` …). Methods take one object with the operation's path
 * parameters, query parameters and body fields, and an optional `{ signal, timeoutMs, headers, retry }`.
 *
 * @example
 *   const client = new GoDBClient({ url: 'http://localhost:8081', apiKey: process.env.GODB_API_KEY });
 *   const { results } = await client.search.hybrid({ query: 'vector databases', limit: 5 });
 */
export class GoDBClient {
  readonly auth: GroupMethods<'auth'>;
  readonly collections: GroupMethods<'collections'>;
  readonly documents: GroupMethods<'documents'>;
  readonly search: GroupMethods<'search'>;
  readonly indexes: GroupMethods<'indexes'>;
  readonly jobs: GroupMethods<'jobs'>;
  readonly snapshots: GroupMethods<'snapshots'>;
  readonly embeddings: GroupMethods<'embeddings'>;
  readonly graph: GroupMethods<'graph'>;
  readonly mail: GroupMethods<'mail'>;
  readonly cluster: GroupMethods<'cluster'>;
  readonly #transport: Transport;

  constructor(options: ClientOptions) {
    this.#transport = new Transport(options);
    this.auth = this.#group('auth');
    this.collections = this.#group('collections');
    this.documents = this.#group('documents');
    this.search = this.#group('search');
    this.indexes = this.#group('indexes');
    this.jobs = this.#group('jobs');
    this.snapshots = this.#group('snapshots');
    this.embeddings = this.#group('embeddings');
    this.graph = this.#group('graph');
    this.mail = this.#group('mail');
    this.cluster = this.#group('cluster');
  }

  /** The login token in use, if any (set by `login`, `auth.login` or the `token` option). */
  get token(): string | undefined {
    return this.#transport.token;
  }

  /**
   * Logs in and keeps the token for the next calls (instead of the API key, if one was given).
   *
   * @example await client.login('ada@example.com', 'correct horse battery');
   */
  async login(email: string, password: string, options?: CallOptions): Promise<Output<'auth', 'login'>> {
    return this.auth.login({ email, password }, options);
  }

  /** Forgets the login token: the next calls use the API key, if one was given, or none. */
  logout(): void {
    this.#transport.token = undefined;
  }

  #group<G extends GroupName>(group: G): GroupMethods<G> {
    const methods = Object.entries(operationTable[group] as Record<string, TableEntry>).map(([name, entry]) => [
      name,
      entry.body === 'ndjson'
        ? (source: ImportSource, options?: ImportOptions) => importNdjson(this.#transport, entry, source, options)
        : (input: Input = {}, options: CallOptions = {}) => this.#call(entry, input, options),
    ]);
    return Object.freeze(Object.fromEntries(methods)) as GroupMethods<G>;
  }

  async #call(entry: TableEntry, input: Input, options: CallOptions): Promise<unknown> {
    const url = this.#transport.url(entry, input);
    const answer = await this.#transport.send(
      entry,
      url,
      () => this.#transport.jsonBody(entry, input),
      options,
      async (response) => {
        if (entry.response === 'binary') return response;
        const text = await response.text();
        return text === '' ? undefined : (JSON.parse(text) as unknown);
      },
    );
    if (entry.id === 'login') this.#transport.token = (answer as { token: string }).token;
    return answer;
  }
}
