import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openTestEngine, type TestEngine } from '../../test-support/engine.js';
import { prepareDocument } from '../documents/prepare.js';
import { SearchRows } from '../access/search-rows.js';
import { PublicRows } from './public-rows.js';
import { vectorSearch } from './vector-search.js';

// Search remembers the rows of public documents between queries. Every change to a document must make it forget
// them, whatever wrote it; a stale row would show a document to someone who may no longer read it.
const tenantId = '00000000-0000-4000-8000-0000000000c1';
const owner = { tenantId, userId: 'owner', groups: [] as string[] };
const reader = { tenantId, userId: 'reader', groups: [] as string[] };
const model = 'use-lite-512';
const axis = (i: number) => Float32Array.from({ length: 512 }, (_v, d) => (d === i ? 1 : d === 511 ? 0.5 : 0));

let engine: TestEngine;
before(() => {
  engine = openTestEngine(':memory:', model);
});
after(() => engine.close());

function write(id: string, title: string, visibility: 'public' | 'private', vector: Float32Array): void {
  const doc = prepareDocument({ id, title, visibility, embedding_options: { enabled: false } }, 'owner', 'x');
  engine.commands.write(owner, [{ ...doc, model, chunks: [{ content: title, start: 0, end: 0, vector }] }], () => 'x');
}

/** What the reader finds near the shared direction: id → title. */
async function found(): Promise<Record<string, string>> {
  const { hits } = await vectorSearch(
    engine.search,
    engine.embedder,
    { viewer: reader, now: 1_800_000_000 },
    {
      vector: Array.from(axis(511)),
      method: 'cosine',
      threshold: -1,
      limit: 10,
    },
  );
  return Object.fromEntries(hits.map((h) => [h.doc.id, h.doc.title]));
}

test('a remembered public row is forgotten when its document changes visibility, version or existence', async () => {
  write('p', 'P', 'public', axis(1));
  write('q', 'Q', 'public', axis(2));
  write('r', 'R', 'private', axis(3));
  assert.deepEqual(await found(), { p: 'P', q: 'Q' });
  assert.deepEqual(await found(), { p: 'P', q: 'Q' }, 'the same from memory');

  engine.documents.access.setVisibility(owner, 'p', 'private');
  assert.deepEqual(await found(), { q: 'Q' });
  engine.documents.access.setVisibility(owner, 'p', 'public');
  assert.deepEqual(await found(), { p: 'P', q: 'Q' });

  write('q', 'Q, second version', 'public', axis(2));
  assert.deepEqual(await found(), { p: 'P', q: 'Q, second version' });

  engine.commands.delete(owner, 'p', { recursive: false, permanent: false });
  assert.deepEqual(await found(), { q: 'Q, second version' });
  engine.commands.delete(owner, 'q', { recursive: false, permanent: true });
  assert.deepEqual(await found(), {});
});

test('rows are kept per tenant and table, and never remembered inside a write transaction', () => {
  const rows = new PublicRows<readonly [number]>(new SearchRows(engine.db));
  assert.ok(rows.sync());
  rows.remember(7, tenantId, 'articles', 'public', [7]);
  rows.remember(8, tenantId, 'articles', 'private', [8]);
  assert.deepEqual(rows.get(7, tenantId, undefined), [7]);
  assert.deepEqual(rows.get(7, tenantId, 'articles'), [7]);
  assert.equal(rows.get(7, tenantId, 'notes'), undefined);
  assert.equal(rows.get(7, '00000000-0000-4000-8000-0000000000c2', undefined), undefined);
  assert.equal(rows.get(8, tenantId, undefined), undefined, 'only public rows');
  engine.db.transaction(() => assert.equal(rows.sync(), false))();
});
