import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { inputLimits } from '@godb/contract';
import { startTestServer, type TestServer } from '../../test-support/server.js';

/**
 * Issue #37, item 1: a keyword query is as long as an embedded one may be (4,096 characters) and an ordinary long
 * question is answered, not refused; its cost is bounded by its terms instead (the 64 most selective are ranked).
 */

let server: TestServer;
let token: string;

/** The first 300 Cranfield abstracts (document 1: a wing in a propeller slipstream). */
const cranfield = readFileSync('/work/shared/data/cranfield/cran.all.1400', 'utf8')
  .replace(/\r\n/g, '\n')
  .split(/^\.I /m)
  .slice(1, 301)
  .map((record) => {
    const [, id = ''] = /^(\d+)/.exec(record) ?? [];
    const title = /\.T\n([\s\S]*?)\n\.A/.exec(record)?.[1] ?? '';
    const content = /\.W\n([\s\S]*)$/.exec(record)?.[1] ?? '';
    return { id: `cran-${id}`, title: title.trim(), content: content.trim(), embedding_options: { enabled: false } };
  });

/** A question of about 2,000 characters, as a researcher would type it (more than 64 distinct terms). */
const question = [
  'I am looking for experimental work, ideally wind tunnel measurements rather than purely theoretical treatments,',
  'on how a propeller slipstream changes the aerodynamics of a wing that sits behind it. In particular I would like',
  'to know how the spanwise distribution of the lift increase due to the slipstream varies with the angle of attack',
  'of the wing, and how it depends on the ratio between the free stream velocity and the slipstream velocity, since',
  'our own design studies for a tilt wing transport aircraft show that this ratio changes a great deal between',
  'cruise and the low speed transition to hover. We have seen claims that a substantial part of the lift increment',
  'produced by the slipstream is not a potential flow effect at all but comes from a destalling or boundary layer',
  'control effect on the part of the wing immersed in the jet, and that once this destalling lift is subtracted the',
  'remaining lift increment agrees rather well with a simple potential flow theory of the wing in a jet. Are there',
  'reports that compare measured span loading curves with such theories, give supporting evidence from pressure',
  'distributions or tuft studies, and offer an empirical evaluation of the destalling effect for a specific',
  'configuration, so that we could check our own estimates against them? Papers that also discuss the effect of',
  'flaps, of the direction of propeller rotation, of the vertical position of the propeller axis relative to the',
  'wing chord plane, or of the number and spacing of the propellers along the span would be welcome, as would any',
  'discussion of the scale effects between model tests at low Reynolds numbers and full scale flight, and of the',
  'corrections needed for the walls of a closed wind tunnel when a large slipstream is present in the test section.',
  'Finally, if the same experiments also measured the drag and the pitching moment of the wing in the slipstream,',
  'or looked at the downwash behind it at the tail, we would be glad to read them as well.',
].join(' ');

before(async () => {
  server = await startTestServer();
  ({ token } = await server.registerTenant());
  const added = await server.call('POST', '/api/v1/documents/batch', token, cranfield);
  assert.ok(added.status < 300, JSON.stringify(added.body));
});
after(async () => server.close());

test('a 2,000-character question is answered by words and ranks the relevant abstract first', async () => {
  assert.ok(question.length > 1900 && question.length < 2200, `${question.length} characters`);
  const res = await server.call('POST', '/api/v1/search/text', token, { query: question, query_type: 'match' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const results = (res.body as { results: { document_id: string }[] }).results;
  assert.equal(results[0]?.document_id, 'cran-1', results.map((r) => r.document_id).join(', '));
});

test('every keyword search answers a long question rather than refusing it for its length', async () => {
  for (const [url, body] of [
    ['/api/v1/search/faceted', { query: question, facets: ['tags'] }],
    ['/api/v1/search/fuzzy', { query: question }],
    ['/api/v1/search/multi-table', { table_names: ['documents'], query: question }],
    ['/api/v1/search/text', { query: question, query_type: 'wildcard' }],
    ['/api/v1/search/text', { query: question, query_type: 'phrase' }],
  ] as const) {
    const res = await server.call('POST', url, token, body);
    assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
  }
  const box = await server.call('GET', `/api/v1/search?query=${encodeURIComponent(question)}&limit=5`, token);
  assert.equal(box.status, 200, JSON.stringify(box.body));
  assert.equal(
    (box.body as { results: { document_id: string }[] }).results[0]?.document_id,
    'cran-1',
    JSON.stringify(box.body).slice(0, 300),
  );
  const faceted = await server.call('POST', '/api/v1/search/faceted', token, { query: question, facets: ['tags'] });
  assert.equal((faceted.body as { results: { document_id: string }[] }).results[0]?.document_id, 'cran-1');
});

test('the longest keyword query, 4,096 characters of distinct words, is answered; its rarest terms rank', async () => {
  // Every abstract's words, distinct, up to the limit: far more than 64 terms.
  const vocabulary = [...new Set(cranfield.flatMap((d) => d.content.match(/[a-z]+/g) ?? []))];
  let query = 'slipstream destalling';
  for (const word of vocabulary) {
    if (query.length + word.length + 1 > inputLimits.keywordQuery) break;
    query += ` ${word}`;
  }
  assert.ok(query.length > inputLimits.keywordQuery - 20, `${query.length} characters of ${vocabulary.length} words`);
  const started = performance.now();
  const res = await server.call('POST', '/api/v1/search/text', token, { query, query_type: 'match' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.ok(performance.now() - started < 5000);
  const results = (res.body as { results: { document_id: string }[] }).results;
  assert.ok(results.length > 0);
  const longer = await server.call('POST', '/api/v1/search/text', token, { query: `${query} wings`.padEnd(4097, 'x') });
  assert.equal(longer.status, 400, 'beyond 4,096 characters, as for an embedded query');
  assert.equal((longer.body as { error: { field: string } }).error.field, 'body.query');
});

test('the most selective terms are counted as the index holds them: capitals, accents, and unknown words last', async () => {
  // 70 words no abstract holds, then the two that find cran-1, capitalised and accented: those two must be kept.
  const unknown = Array.from({ length: 70 }, (_v, i) => `zq${String.fromCharCode(97 + (i % 26))}${i}xv`);
  const query = `${unknown.join(' ')} SLIPSTRÉAM Destalling`;
  const res = await server.call('POST', '/api/v1/search/text', token, { query, query_type: 'match' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const results = (res.body as { results: { document_id: string }[] }).results;
  assert.equal(results[0]?.document_id, 'cran-1', JSON.stringify(res.body).slice(0, 300));
});
