import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../engine/vectors/kmeans.js';
import { startTestServer, type HttpMethod, type TestServer } from '../../test-support/server.js';

/**
 * Issue #22: no answer of any search kind or read path carries anything of a document the caller may not read.
 *
 * A property test over several tenants, users and groups: every document carries two unique random words, one in
 * its content (`key`, the word the queries aim at) and one in its id, title, tags, categories, metadata and
 * content (`mark`), so any leak of the document — a result, a chunk, an expansion, a suggestion, a facet value, a
 * graph node — puts one of them in the answer's text. Queries aim at each document's words exactly, by a prefix
 * (wildcard, autocomplete) and one letter off (fuzzy), as every user; then grants are revoked, visibilities change,
 * a document gets a second version and goes private, one is deleted, and everything runs again. The model of who
 * may read what is the specification's rule, written here independently of the server's.
 *
 * Seeded: a failure prints the seed; `ACCESS_PROPERTY_SEED=<n>` replays it.
 */

const seed = Number(process.env.ACCESS_PROPERTY_SEED ?? Date.now() % 1_000_000);
/** `npm run test:fuzz` runs it larger: ACCESS_PROPERTY_TENANTS tenants of ACCESS_PROPERTY_USERS users besides the admin. */
const tenantCount = Number(process.env.ACCESS_PROPERTY_TENANTS ?? 3);
const usersPerTenant = Number(process.env.ACCESS_PROPERTY_USERS ?? 3);

const random = seededRandom(seed);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const letters = 'bcdfghjklmnpqrstvwxz';
const usedPrefixes = new Set<string>();
/** A random word of 10 consonants (no English word, no stemming surprises) whose first 5 letters are unique. */
function uniqueWord(): string {
  for (;;) {
    const word = Array.from({ length: 10 }, () => pick([...letters])).join('');
    if (!usedPrefixes.has(word.slice(0, 5))) {
      usedPrefixes.add(word.slice(0, 5));
      return word;
    }
  }
}
/** The word with one letter replaced (a fuzzy query one edit away). */
const oneOff = (word: string) => `${word.slice(0, 6)}${word[6] === 'y' ? 'z' : 'y'}${word.slice(7)}`;

type Visibility = 'public' | 'private' | 'shared';
interface User {
  readonly name: string;
  readonly userId: string;
  readonly token: string;
  groups: string[];
}
interface Tenant {
  readonly tenantId: string;
  readonly users: User[];
  readonly group: string;
}
interface Doc {
  readonly tenant: Tenant;
  readonly creator: User;
  readonly id: string;
  readonly key: string;
  readonly mark: string;
  visibility: Visibility;
  /** Principals of ACL entries (the creator is an owner). */
  acl: string[];
  /** Principals of the access list (count for shared documents only). */
  accessList: string[];
  deleted: boolean;
  /** Ids of earlier versions (`id@v1`), readable exactly when the document is. */
  versions: string[];
}

/** The specification's access rule, independent of the server's code. */
function mayRead(user: User, tenant: Tenant, doc: Doc): boolean {
  if (doc.tenant !== tenant || doc.deleted) return false;
  const principals = [user.userId, ...user.groups];
  if (doc.visibility === 'public') return true;
  if (doc.acl.some((p) => principals.includes(p))) return true;
  return doc.visibility === 'shared' && doc.accessList.some((p) => principals.includes(p));
}

let server: TestServer;
const tenants: Tenant[] = [];
const docs: Doc[] = [];
let requests = 0;

function call(method: HttpMethod, url: string, token: string, payload?: unknown) {
  requests += 1;
  return server.call(method, url, token, payload);
}

async function must(method: 'POST' | 'PUT' | 'DELETE', url: string, token: string, payload?: unknown) {
  const res = await call(method, url, token, payload);
  assert.ok(res.status < 300, `${method} ${url}: ${res.status} ${res.text} (seed ${seed})`);
  return JSON.parse(res.text) as Record<string, unknown>;
}

function docBody(doc: Doc, parent?: Doc) {
  return {
    id: doc.id,
    title: `Report ${doc.mark}`,
    content: `Findings ${doc.key} about the boundary layer and ${doc.mark} in supersonic flow.`,
    visibility: doc.visibility,
    tags: [`t${doc.mark}`],
    categories: [`c${doc.mark}`],
    metadata: { code: `m${doc.mark}` },
    location: [40 + random(), 2 + random()],
    ...(doc.accessList.length > 0 && { access_list: doc.accessList }),
    acl: doc.acl.filter((p) => p !== doc.creator.userId).map((user_id) => ({ user_id, role: 'view' })),
    ...(parent && { parent_doc_id: parent.id }),
  };
}

before(async () => {
  server = await startTestServer();
  for (let t = 0; t < tenantCount; t += 1) {
    const admin = await server.registerTenant();
    const users: User[] = [{ name: `t${t}-admin`, userId: admin.userId, token: admin.token, groups: [] }];
    for (let u = 0; u < usersPerTenant; u += 1) {
      const added = await server.addUser(admin);
      users.push({ name: `t${t}-u${u}`, userId: added.userId, token: added.token, groups: [] });
    }
    const created = await must('POST', '/auth/groups', admin.token, { name: `team-${t}` });
    const group = created.group_id as string;
    const member = users[1]!;
    await must('POST', `/auth/groups/${group}/users`, admin.token, { user_id: member.userId });
    member.groups.push(group);
    const tenant: Tenant = { tenantId: admin.tenantId, users, group };
    tenants.push(tenant);
    // Each user writes documents of each visibility, with grants to someone else or to the group.
    for (const creator of users) {
      for (const visibility of ['public', 'private', 'shared', 'private'] as const) {
        const other = pick(users.filter((u) => u !== creator));
        const doc: Doc = {
          tenant,
          creator,
          id: `d-${uniqueWord()}`,
          key: uniqueWord(),
          mark: '',
          visibility,
          acl: [creator.userId, ...(random() < 0.5 ? [random() < 0.5 ? group : other.userId] : [])],
          accessList: visibility === 'shared' ? [random() < 0.5 ? group : other.userId] : [],
          deleted: false,
          versions: [],
        };
        (doc as { mark: string }).mark = doc.id.slice(2);
        // Some documents are children of another's document (the graph's parent_of/child_of edges).
        const parent = random() < 0.4 ? pick(docs.filter((d) => d.tenant === tenant)) : undefined;
        await must('POST', '/api/v1/documents', creator.token, {
          ...docBody(doc, parent && mayRead(creator, tenant, parent) ? parent : undefined),
        });
        docs.push(doc);
      }
    }
  }
  // Every user engages with a few documents they may read: recommendations learn from engagement.
  for (const tenant of tenants) {
    for (const user of tenant.users) {
      const readable = docs.filter((d) => mayRead(user, tenant, d));
      for (let i = 0; i < 4; i += 1) {
        await must('POST', `/api/v1/documents/${pick(readable).id}/engagement`, user.token, { views: 1, likes: 1 });
      }
    }
  }
});
after(async () => {
  await server?.close();
});

/** Every answer a user can get that could carry a word of `target` (a document of their tenant). */
function probes(target: Doc): [method: 'GET' | 'POST', url: string, body: unknown][] {
  const { key, mark } = target;
  return [
    ['POST', '/api/v1/search/text', { query: key, query_type: 'match' }],
    ['POST', '/api/v1/search/text', { query: `${key.slice(0, 5)}*`, query_type: 'wildcard' }],
    ['POST', '/api/v1/search/text', { query: `${mark.slice(0, 5)}* boundary`, query_type: 'wildcard' }],
    ['POST', '/api/v1/search/fuzzy', { query: oneOff(key), fuzziness: 1 }],
    ['POST', '/api/v1/search/fuzzy', { query: oneOff(mark), fuzziness: 2, prefix_length: 2 }],
    ['POST', '/api/v1/search/autocomplete', { prefix: key.slice(0, 5), field: 'content', fuzziness: 1 }],
    ['POST', '/api/v1/search/autocomplete', { prefix: mark.slice(0, 5), field: 'title' }],
    ['POST', '/api/v1/search/autocomplete', { prefix: `t${mark.slice(0, 4)}`, field: 'tags' }],
    ['POST', '/api/v1/search/autocomplete', { prefix: `c${mark.slice(0, 4)}`, field: 'categories' }],
    ['POST', '/api/v1/search/smart', { query: `${key.slice(0, 5)}*` }],
    ['POST', '/api/v1/search/hybrid', { query: `findings ${key}` }],
    ['GET', `/api/v1/search?query=${key}`, undefined],
    ['GET', `/api/v1/documents/${target.id}`, undefined],
    ['GET', `/api/v1/documents/${encodeURIComponent(`${target.id}#0`)}`, undefined],
    ...target.versions.map((v): ['GET', string, undefined] => ['GET', `/api/v1/documents/${v}`, undefined]),
    ['POST', '/api/v1/search/recommendations', { document_id: target.id, strategy: 'hybrid', min_similarity: 0 }],
    ['POST', '/api/v1/search/graph', { start_node_id: target.id, query_type: 'bfs', edge_type: '*', depth: 3 }],
    ['POST', '/api/v1/graph/query', { start_node_id: target.id, query_type: 'dfs', depth: 3 }],
  ];
}

/** What every user asks once per round, whatever the documents (facets, geo, graph, recommendations…). */
function wideProbes(tenant: Tenant): [method: 'GET' | 'POST', url: string, body: unknown][] {
  const someone = pick(docs.filter((d) => d.tenant === tenant && d.visibility === 'public' && !d.deleted));
  return [
    ['POST', '/api/v1/search/faceted', { facets: ['tags', 'categories', 'metadata.code', 'visibility'] }],
    ['POST', '/api/v1/search/faceted', { query: 'findings boundary', facets: ['tags'], limit: 100 }],
    ['POST', '/api/v1/search/geo', { lat: 40.5, lon: 2.5, radius: 500, limit: 100 }],
    ['POST', '/api/v1/search/vector', { query: 'findings about the boundary layer', threshold: 0, limit: 100 }],
    ['POST', '/api/v1/search/text', { query: 'boundary layer', query_type: 'phrase', limit: 100 }],
    ['POST', '/api/v1/search/multi-table', { table_names: ['documents'], query: 'findings', limit: 100 }],
    [
      'POST',
      '/api/v1/search/multi-table',
      {
        table_names: ['documents'],
        join_conditions: [
          {
            left_table: 'documents',
            left_field: 'title',
            right_table: 'documents',
            right_field: 'title',
            operator: 'ne',
          },
        ],
        limit: 100,
      },
    ],
    [
      'POST',
      '/api/v1/search/recommendations',
      { document_id: someone.id, strategy: 'content', min_similarity: 0, limit: 100 },
    ],
    [
      'POST',
      '/api/v1/search/graph',
      { query_type: 'centrality', centrality_type: 'degree', edge_type: '*', limit: 100 },
    ],
    ['POST', '/api/v1/search/graph', { query_type: 'node_embeddings', edge_type: '*', dimensions: 8, limit: 100 }],
    ['POST', '/api/v1/search/recommendations', { strategy: 'collaborative', limit: 100 }],
    ['POST', '/api/v1/search/recommendations', { strategy: 'hybrid', min_similarity: 0, limit: 100 }],
    ['GET', '/api/v1/documents/stats', undefined],
  ];
}

/** The strings a request carries (path segments, query values, body strings), longest first. */
function typedIn(url: string, body: unknown): string[] {
  const [path = '', search = ''] = url.split('?');
  const strings = [
    ...path.split('/').flatMap((segment) => decodeURIComponent(segment).split('#')),
    ...[...new URLSearchParams(search).values()],
    ...(JSON.stringify(body ?? null).match(/"(?:[^"\\]|\\.)*"/g) ?? []).map((s) => JSON.parse(s) as string),
  ];
  return strings.filter((s) => s.length >= 5).sort((a, b) => b.length - a.length);
}

/** The secret words of the documents `user` may not read. */
const hiddenFrom = (user: User, tenant: Tenant) =>
  docs.filter((d) => !mayRead(user, tenant, d)).flatMap((d) => [d.key, d.mark]);

async function round(label: string): Promise<void> {
  const failures: string[] = [];
  for (const tenant of tenants) {
    for (const user of tenant.users) {
      const hidden = hiddenFrom(user, tenant);
      const check = (method: string, url: string, body: unknown, status: number, text: string) => {
        if (status >= 500)
          failures.push(`${label} ${user.name} ${method} ${url} ${JSON.stringify(body)} → ${status} ${text}`);
        // What the caller typed (an id, a query) may be echoed back; everything else is checked.
        const shown = typedIn(url, body).reduce((rest, typed) => rest.split(typed).join(''), text);
        const leaked = hidden.filter((word) => shown.includes(word));
        if (leaked.length > 0) {
          failures.push(
            `${label} ${user.name} ${method} ${url} ${JSON.stringify(body)} leaked ${leaked.join(', ')}: ${text.slice(0, 400)}`,
          );
        }
      };
      for (const target of docs.filter((d) => d.tenant === tenant)) {
        for (const [method, url, body] of probes(target)) {
          const res = await call(method, url, user.token, body);
          check(method, url, body, res.status, res.text);
          if (url.startsWith('/api/v1/documents/') && !mayRead(user, tenant, target)) {
            if (res.status !== 404) failures.push(`${label} ${user.name} GET ${url} → ${res.status}, expected 404`);
          }
        }
      }
      for (const [method, url, body] of wideProbes(tenant)) {
        const res = await call(method, url, user.token, body);
        check(method, url, body, res.status, res.text);
      }
    }
  }
  assert.deepEqual(failures.slice(0, 20), [], `seed ${seed}: ${failures.length} failures`);
}

test(
  'no answer carries a word of a document the caller may not read, before and after access changes',
  { timeout: 3_600_000 },
  async (t) => {
    await round('initial');
    // Midway: grants revoked, visibilities changed, a new version that then goes private, a deletion.
    for (const tenant of tenants) {
      const own = docs.filter((d) => d.tenant === tenant);
      const granted = own.find((d) => d.acl.length > 1 && !d.deleted)!;
      const revoked = granted.acl[1]!;
      await must('PUT', `/api/v1/documents/${granted.id}/acl`, granted.creator.token, {
        operation: 'remove',
        acl: [{ user_id: revoked, role: 'view' }],
      });
      granted.acl = granted.acl.filter((p) => p !== revoked);

      const published = own.find((d) => d.visibility === 'public' && !d.deleted)!;
      await must('PUT', `/api/v1/documents/${published.id}/visibility`, published.creator.token, {
        visibility: 'private',
      });
      published.visibility = 'private';

      const revised = own.find((d) => d.visibility === 'public' && !d.deleted)!;
      await must('POST', '/api/v1/documents', revised.creator.token, docBody(revised));
      revised.versions.push(`${revised.id}@v1`);
      await must('PUT', `/api/v1/documents/${revised.id}/visibility`, revised.creator.token, { visibility: 'private' });
      revised.visibility = 'private';

      const opened = own.find((d) => d.visibility === 'private' && !d.deleted)!;
      await must('PUT', `/api/v1/documents/${opened.id}/visibility`, opened.creator.token, { visibility: 'shared' });
      opened.visibility = 'shared';

      const removed = own.find((d) => d.visibility === 'public' && !d.deleted)!;
      await must('DELETE', `/api/v1/documents/${removed.id}`, removed.creator.token);
      removed.deleted = true;
    }
    await round('after changes');
    assert.ok(requests > 1000, `the property test made ${requests} requests`);
    t.diagnostic(
      `seed ${seed}: ${tenants.length} tenants, ${tenants.length * (usersPerTenant + 1)} users, ${docs.length} documents, ${requests} requests, no leak`,
    );
  },
);

/**
 * Answers that rank or expand the words `keys` (of documents the user may read), minus the time they took: none may
 * depend on a document the user cannot read.
 */
async function rankedAnswers(user: User, keys: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const words = keys.join(' ');
  for (const [method, url, body] of [
    ['POST', '/api/v1/search/text', { query: `${words} supersonic`, query_type: 'match', limit: 100 }],
    ['POST', '/api/v1/search/text', { query: `findings ${keys[0]}`, query_type: 'phrase', limit: 100 }],
    ['POST', '/api/v1/search/text', { query: `${keys[0]!.slice(0, 5)}* flow`, query_type: 'wildcard', limit: 100 }],
    ['POST', '/api/v1/search/fuzzy', { query: keys.map(oneOff).join(' '), fuzziness: 1, limit: 100 }],
    ['POST', '/api/v1/search/autocomplete', { prefix: keys[0]!.slice(0, 3), field: 'content', limit: 20 }],
    ['POST', '/api/v1/search/faceted', { query: words, facets: ['tags'], limit: 100 }],
    ['GET', `/api/v1/search?query=${keys.join('%20')}&limit=100`, undefined],
  ] as const) {
    const res = await call(method, url, user.token, body);
    const { time_taken: _time, ...answer } = JSON.parse(res.text) as Record<string, unknown>;
    out.push(`${method} ${url} ${JSON.stringify(body)} → ${res.status} ${JSON.stringify(answer)}`);
  }
  return out;
}

test('no ranked answer moves when someone else writes documents the caller may not read', async () => {
  const asked = new Map<User, { keys: string[]; answers: string[] }>();
  for (const tenant of tenants) {
    for (const user of tenant.users) {
      const keys = docs.filter((d) => mayRead(user, tenant, d)).map((d) => d.key);
      const some = Array.from({ length: 4 }, () => pick(keys));
      asked.set(user, { keys: some, answers: await rankedAnswers(user, some) });
    }
  }
  // In each tenant, one user writes private documents full of every document's words: BM25 statistics that
  // counted them would move everyone's scores, and frequencies that counted them would reorder expansions.
  const writers = new Set<User>();
  for (const tenant of tenants) {
    const writer = pick(tenant.users);
    writers.add(writer);
    const words = docs.filter((d) => d.tenant === tenant).map((d) => `Findings ${d.key} ${d.mark}`);
    for (let i = 0; i < 3; i += 1) {
      await must('POST', '/api/v1/documents', writer.token, {
        id: `noise-${uniqueWord()}`,
        title: 'Findings in supersonic flow',
        content: `${'Findings about the boundary layer in supersonic flow. '.repeat(1 + i)} ${words.join('. ')}`,
        visibility: 'private',
      });
    }
  }
  const failures: string[] = [];
  for (const [user, { keys, answers }] of asked) {
    if (writers.has(user)) continue;
    const after = await rankedAnswers(user, keys);
    answers.forEach((answer, i) => {
      if (after[i] !== answer)
        failures.push(`${user.name}: ${answer.slice(0, 300)}\n  became ${after[i]!.slice(0, 300)}`);
    });
  }
  assert.deepEqual(failures.slice(0, 5), [], `seed ${seed}: ${failures.length} answers moved`);
});

test('an older version follows its document current access; links to unreadable documents are not shown', async () => {
  const admin = await server.registerTenant();
  const reader = await server.addUser(admin);
  const get = (url: string, token: string) => call('GET', url, token);
  const write = (doc: Record<string, unknown>) => must('POST', '/api/v1/documents', admin.token, doc);
  await write({ id: 'report', title: 'First draft', content: 'draft one' });
  await write({ id: 'report', title: 'Second draft', content: 'draft two' });
  assert.equal((await get('/api/v1/documents/report@v1', reader.token)).status, 200, 'public: every version');
  await must('PUT', '/api/v1/documents/report/visibility', admin.token, { visibility: 'private' });
  for (const id of ['report', 'report@v1', encodeURIComponent('report@v1#0')]) {
    const res = await get(`/api/v1/documents/${id}`, reader.token);
    assert.equal(res.status, 404, `${id} after the document went private: ${res.text}`);
    assert.ok(!res.text.includes('draft one'), res.text);
  }
  assert.equal((await get('/api/v1/documents/report@v1', admin.token)).status, 200, 'its owner still reads it');
  await must('DELETE', '/api/v1/documents/report', admin.token);
  assert.equal((await get('/api/v1/documents/report@v1', admin.token)).status, 404, 'deleted: no version either');
  // The id stays with its owner until purged: nobody else can write over the deleted document and its versions.
  const taken = await call('POST', '/api/v1/documents', reader.token, { id: 'report', content: 'new' });
  assert.equal(taken.status, 403, taken.text);
  // A document written after its owner re-uses the id opens none of the old versions.
  await write({ id: 'report', title: 'Third', content: 'new', visibility: 'public' });
  const old = await get('/api/v1/documents/report@v1', reader.token);
  assert.equal(old.status, 404, old.text);

  // A public parent whose child is private: the reader sees neither the child's id nor that it is a parent.
  await write({ id: 'folder', title: 'Folder', content: 'open folder' });
  await write({ id: 'hidden-child', content: 'secret child', visibility: 'private', parent_doc_id: 'folder' });
  const folder = await get('/api/v1/documents/folder', reader.token);
  assert.equal(folder.status, 200);
  assert.ok(!folder.text.includes('hidden-child'), folder.text);
  const removal = await call('DELETE', '/api/v1/documents/folder?recursive=true', reader.token);
  assert.ok(!removal.text.includes('hidden-child'), removal.text);
});

test("a user cannot ask for recommendations from another user's engagement; an admin can", async () => {
  const tenant = tenants[0]!;
  const [admin, user, other] = tenant.users;
  // Engagement on a document everyone may still read (the random engagement above may all have gone private).
  await must('POST', '/api/v1/documents', admin!.token, { id: 'open-notes', content: 'notes anyone may read' });
  for (const u of [user!, other!]) {
    await must('POST', '/api/v1/documents/open-notes/engagement', u.token, { views: 1 });
  }
  const asUser = await call('POST', '/api/v1/search/recommendations', user!.token, { user_id: other!.userId });
  assert.equal(asUser.status, 403, asUser.text);
  assert.match(asUser.text, /admin role/);
  const asAdmin = await call('POST', '/api/v1/search/recommendations', admin!.token, {
    user_id: other!.userId,
    strategy: 'collaborative',
  });
  assert.equal(asAdmin.status, 200, asAdmin.text);
  const own = await call('POST', '/api/v1/search/recommendations', user!.token, { user_id: user!.userId });
  assert.equal(own.status, 200, own.text);
});
