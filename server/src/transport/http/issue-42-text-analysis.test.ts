import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test-support/server.js';

// Issue #42 over HTTP: a collection's analysis settings (language, stop words, synonyms) on POST/PATCH, a text
// search's `lang`, `highlight` on text and hybrid search, and the 400s of bad settings naming the field.

type Result = { document_id: string; highlights?: string[] };
type ErrorBody = { code: string; field?: string; message: string };

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
const call: TestServer['call'] = (...args) => server.call(...args);

const search = async (body: Record<string, unknown>, kind = 'text') => {
  const res = await call('POST', `/api/v1/search/${kind}`, admin.token, { limit: 10, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { results: Result[]; notes?: string[] };
};
const ids = (answer: { results: Result[] }) => answer.results.map((r) => r.document_id).sort();

before(async () => {
  server = await startTestServer({ RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000' });
  admin = await server.registerTenant();
  const created = await call('POST', '/api/v1/collections', admin.token, {
    name: 'buecher',
    analysis: { language: 'de', stop_words: 'german', synonyms: [['auto', 'wagen']] },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual(created.body.analysis, {
    language: 'de',
    stop_words: 'german',
    synonyms: [['auto', 'wagen']],
  });
  const docs = [
    { id: 'b1', title: 'Alte Häuser', content: 'Die Häuser der Altstadt & <ihre> Gärten.', lang_code: 'de' },
    { id: 'b2', title: 'Der Wagen', content: 'Ein roter Wagen vor dem Haus.', lang_code: 'de' },
    { id: 'b3', title: 'Bücher', content: 'Ein Buch über das Auto.', lang_code: 'de' },
  ].map((d) => ({ ...d, primary_table: 'buecher', embedding_options: { enabled: false } }));
  const written = await call('POST', '/api/v1/documents/batch', admin.token, [
    ...docs,
    {
      id: 'e1',
      title: 'Horses',
      content: 'Les chevaux & the horses.',
      lang_code: 'en',
      embedding_options: { enabled: false },
    },
  ]);
  assert.equal(written.status, 200, JSON.stringify(written.body).slice(0, 300));
});
after(async () => {
  await server.close();
});

describe('text analysis settings over HTTP', () => {
  test('a collection analyses its queries in its language, with its stop words and synonyms', async () => {
    const houses = await search({ query: 'die hauser', query_type: 'match', primary_table: 'buecher' });
    assert.deepEqual(ids(houses), ['b1', 'b2']);
    assert.deepEqual(houses.notes, ['stop words left out: die']);
    const car = await search({ query: 'Auto', query_type: 'match', primary_table: 'buecher' });
    assert.deepEqual(ids(car), ['b2', 'b3']);
    assert.deepEqual(car.notes, ['synonyms: auto → wagen']);
    // `lang` overrides the collection's language: in English "häuser" is a word no German document holds.
    const english = await search({ query: 'häuser', query_type: 'match', primary_table: 'buecher', lang: 'en' });
    assert.deepEqual(ids(english), []);
    // Without a collection: English, unless `lang` says otherwise.
    assert.deepEqual(ids(await search({ query: 'horse', query_type: 'match' })), ['e1']);
    assert.deepEqual(ids(await search({ query: 'Haus', query_type: 'match', lang: 'de' })), ['b1', 'b2']);
  });

  test('PATCH replaces the settings, applied from the next query', async () => {
    const patched = await call('PATCH', '/api/v1/collections/buecher', admin.token, {
      analysis: { language: 'de', synonyms: [['buch', 'haus']] },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual((await call('GET', '/api/v1/collections/buecher', admin.token)).body.analysis, {
      language: 'de',
      synonyms: [['buch', 'haus']],
    });
    const books = await search({ query: 'Bücher', query_type: 'match', primary_table: 'buecher' });
    assert.deepEqual(ids(books), ['b1', 'b2', 'b3']);
    assert.deepEqual(books.notes, ['synonyms: bücher → haus']);
    const cleared = await call('PATCH', '/api/v1/collections/buecher', admin.token, { analysis: {} });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.analysis, undefined);
    // English again: "die" is no stop word, and German plurals are other words.
    assert.deepEqual(ids(await search({ query: 'häuser', query_type: 'match', primary_table: 'buecher' })), []);
    await call('PATCH', '/api/v1/collections/buecher', admin.token, {
      analysis: { language: 'de', stop_words: 'german', synonyms: [['auto', 'wagen']] },
    });
  });

  test('highlight marks the matched words and escapes the rest, on text and hybrid search', async () => {
    const text = await search({ query: 'Häuser', query_type: 'match', primary_table: 'buecher', highlight: true });
    const b1 = text.results.find((r) => r.document_id === 'b1')!;
    assert.deepEqual(b1.highlights, ['Die <em>Häuser</em> der Altstadt &amp; &lt;ihre&gt; Gärten.']);
    const b2 = text.results.find((r) => r.document_id === 'b2')!;
    assert.deepEqual(b2.highlights, ['Ein roter Wagen vor dem <em>Haus</em>.']);
    const plain = await search({ query: 'Häuser', query_type: 'match', primary_table: 'buecher' });
    assert.equal(plain.results[0]!.highlights, undefined, 'only when asked');
    const hybrid = await search(
      { query: 'Auto', primary_table: 'buecher', highlight: true, alpha: 0, model_name: undefined },
      'hybrid',
    );
    const b3 = hybrid.results.find((r) => r.document_id === 'b3')!;
    assert.deepEqual(b3.highlights, ['Ein Buch über das <em>Auto</em>.']);
    assert.ok(hybrid.notes?.includes('synonyms: auto → wagen'), JSON.stringify(hybrid.notes));
  });

  test('a document whose lang_code changes is analysed in its new language', async () => {
    const added = await call('POST', '/api/v1/documents', admin.token, {
      id: 'p1',
      title: 'Mühlen',
      content: 'Die alten Mühlen am Bach.',
      lang_code: 'en',
      embedding_options: { enabled: false },
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const mills = { query: 'Mühle', query_type: 'match', lang: 'de' };
    assert.deepEqual(ids(await search(mills)), [], 'stemmed as English: "muhlen"');
    const patched = await call('PATCH', '/api/v1/documents/p1', admin.token, { lang_code: 'de' });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual(ids(await search(mills)), ['p1']);
  });

  test('bad settings and an unknown language are refused with 400 naming the field', async () => {
    const refused = async (method: 'POST' | 'PATCH', url: string, body: Record<string, unknown>, field: RegExp) => {
      const res = await call(method, url, admin.token, body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      const error = res.body.error as ErrorBody;
      assert.equal(error.code, 'VALIDATION_FAILED');
      assert.match(`${error.field ?? ''} ${error.message}`, field, JSON.stringify(error));
    };
    await refused('POST', '/api/v1/search/text', { query: 'x', lang: 'xx' }, /body\.lang/);
    await refused('POST', '/api/v1/search/hybrid', { query: 'x', lang: 'klingon' }, /body\.lang/);
    await refused('POST', '/api/v1/collections', { name: 'c1', analysis: { language: 'zz' } }, /analysis\.language/);
    await refused(
      'POST',
      '/api/v1/collections',
      { name: 'c2', analysis: { stop_words: 'elvish' } },
      /analysis\.stop_words/,
    );
    await refused(
      'PATCH',
      '/api/v1/collections/buecher',
      { analysis: { synonyms: [['lonely']] } },
      /analysis\.synonyms/,
    );
    await refused(
      'PATCH',
      '/api/v1/collections/buecher',
      { analysis: { synonyms: 'car=automobile' } },
      /analysis\.synonyms/,
    );
    await refused(
      'POST',
      '/api/v1/collections',
      { name: 'c3', analysis: { synonyms: [['car', '!!!']] } },
      /body\.analysis\.synonyms\[0\]\[1\]/,
    );
    await refused('POST', '/api/v1/collections', { name: 'c4', analysis: { colour: 'red' } }, /analysis/);
  });
});
