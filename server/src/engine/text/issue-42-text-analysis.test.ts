// Issue #42 (text analysis per language): documents are stemmed in their lang_code's language, accents never
// matter, a query is analysed in its language with the collection's stop words and synonyms, and FTS5 (while the
// in-memory index loads), the loaded index and an index read back after a restart or an upgrade answer alike.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { DocumentInput } from '@godb/contract';
import { openTestEngine, type TestEngine } from '../../test-support/engine.js';
import type { Viewer } from '../documents/types.js';
import { ftsRanked } from '../search/fts-rank.js';
import { textMatch } from '../search/fts-query.js';
import type { Scope } from '../search/scope.js';
import { textSearch } from '../search/text-search.js';
import { highlightPassages, hitHighlights } from './highlight.js';
import { analyseMatch, queryAnalysis, type QueryAnalysis } from './query-analysis.js';
import { indexTerms } from './tokenize.js';

const tenant = '00000000-0000-4000-8000-000000000042';
const viewer: Viewer = { tenantId: tenant, userId: 'owner', groups: [] };
const scope: Scope = { viewer, now: 1_800_000_000 };

const doc = (id: string, lang: string, title: string, content: string): DocumentInput => ({
  id,
  title,
  content,
  lang_code: lang,
  embedding_options: { enabled: false },
});

const corpus: DocumentInput[] = [
  doc('de-1', 'de', 'Alte Häuser', 'Die Häuser der Altstadt stehen am Fluss.'),
  doc('de-2', 'de', 'Ein Haus', 'Das Haus hat einen Garten und viele Bücher.'),
  doc('de-3', 'de-AT', 'Bücherei', 'Ein Buch über das Wiener Kaffeehaus.'),
  doc('fr-1', 'fr', 'Les chevaux', 'Les chevaux courent dans le pré, un été chaud.'),
  doc('fr-2', 'fr', 'Un cheval', 'Le cheval blanc de la ferme.'),
  doc('es-1', 'es', 'Canciones', 'Las canciones de los niños.'),
  doc('it-1', 'it', 'Gatti', 'I gatti dormono al sole.'),
  doc('pt-1', 'pt', 'Livros', 'Os livros da biblioteca.'),
  doc('nl-1', 'nl', 'Boeken', 'De boeken van de kinderen.'),
  doc('en-1', 'en', 'Houses', 'The houses by the river; a car and an automobile.'),
  doc('en-2', 'en', 'Cars', 'Fast cars & <b>bold</b> "drivers" race.'),
  doc('en-3', 'en', 'Vehicles', 'An automobile museum.'),
  doc('xx-1', 'ja', 'Flows', 'Turbulent flows in nozzles.'),
];

const ids = (engine: TestEngine, query: string, analysis: QueryAnalysis, type: 'match' | 'phrase' = 'match') =>
  textSearch(engine.search, scope, query, type, 20, analysis)
    .hits.map((h) => h.doc.id)
    .sort();

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'godb-analysis-'));
  dirs.push(dir);
  return dir;
};

describe('per-language analysis', () => {
  it('stems each language with its Snowball stemmer, accents folded first', () => {
    const same = (lang: Parameters<typeof indexTerms>[1], a: string, b: string) =>
      assert.deepEqual(indexTerms(a, lang), indexTerms(b, lang), `${lang}: ${a} / ${b}`);
    same('de', 'Häuser', 'Haus');
    same('de', 'Bücher', 'Buch');
    same('de', 'HAUSER', 'häuser');
    same('fr', 'chevaux', 'cheval');
    same('fr', 'été', 'ete');
    same('es', 'canciones', 'canción');
    same('es', 'niños', 'ninos');
    same('it', 'gatti', 'gatto');
    same('pt', 'livros', 'livro');
    same('nl', 'boeken', 'boek');
    // English stays the original Porter stemmer (as FTS5's porter tokenizer): its terms are unchanged.
    assert.deepEqual(indexTerms('Turbulent FLOWS, naïve résumés'), ['turbul', 'flow', 'naiv', 'resum']);
  });

  it('finds documents by the stems of their own language, for a query analysed in that language', async () => {
    const engine = openTestEngine(':memory:');
    try {
      await engine.add(viewer, corpus, (i) => `[${i}]`);
      const de = queryAnalysis(undefined, 'de');
      assert.deepEqual(ids(engine, 'Häuser', de), ['de-1', 'de-2']);
      assert.deepEqual(ids(engine, 'hauser', de), ['de-1', 'de-2'], 'unaccented');
      assert.deepEqual(ids(engine, 'Buch', de), ['de-2', 'de-3'], 'de-AT is German');
      assert.deepEqual(ids(engine, 'cheval', queryAnalysis(undefined, 'fr')), ['fr-1', 'fr-2']);
      assert.deepEqual(ids(engine, 'ete', queryAnalysis(undefined, 'fr')), ['fr-1'], 'été without its accents');
      assert.deepEqual(ids(engine, 'canción', queryAnalysis(undefined, 'es')), ['es-1']);
      assert.deepEqual(ids(engine, 'gatto', queryAnalysis(undefined, 'it')), ['it-1']);
      assert.deepEqual(ids(engine, 'livro', queryAnalysis(undefined, 'pt')), ['pt-1']);
      assert.deepEqual(ids(engine, 'boek', queryAnalysis(undefined, 'nl')), ['nl-1']);
      // In English, the German plural is another word that no document holds (German documents hold "haus"); a
      // lang_code without a stemmer is analysed as English.
      const en = queryAnalysis(undefined);
      assert.deepEqual(ids(engine, 'Häuser', en), []);
      assert.deepEqual(ids(engine, 'flow', en), ['xx-1']);
      assert.deepEqual(ids(engine, 'house', en), ['en-1']);
      // A phrase is stemmed word by word.
      assert.deepEqual(ids(engine, 'das Häuser', de, 'phrase'), ['de-2']);
    } finally {
      await engine.close();
    }
  });

  it('leaves out stop words and adds synonyms at query time, and says so', async () => {
    const engine = openTestEngine(':memory:');
    try {
      await engine.add(viewer, corpus, (i) => `[${i}]`);
      const settings = {
        stop_words: 'english' as const,
        synonyms: [
          ['car', 'automobile'],
          ['river', 'stream'],
        ],
      };
      const analysis = queryAnalysis(settings);
      const search = (query: string) => textSearch(engine.search, scope, query, 'match', 20, analysis);
      const cars = search('the car');
      assert.deepEqual(cars.hits.map((h) => h.doc.id).sort(), ['en-1', 'en-2', 'en-3']);
      assert.deepEqual(cars.notes, ['stop words left out: the', 'synonyms: car → automobile']);
      // A group is found by the stem of a query word: "cars" is "car".
      assert.deepEqual(search('cars').notes, ['synonyms: cars → automobile']);
      // Without the settings "the" matches (nearly) every English document and "car" only its own word's.
      assert.deepEqual(ids(engine, 'car', queryAnalysis(undefined)), ['en-1', 'en-2']);
      // A query of stop words only keeps them; a phrase keeps every word and gets no synonyms.
      assert.deepEqual(search('the').notes, []);
      assert.ok(search('the').hits.length > 0);
      const phrase = textSearch(engine.search, scope, 'an automobile', 'phrase', 20, analysis);
      assert.deepEqual(phrase.hits.map((h) => h.doc.id).sort(), ['en-1', 'en-3']);
      assert.deepEqual(phrase.notes, []);
      // Own words, compared without case or accents.
      const own = queryAnalysis({ stop_words: ['Fast', 'RÂCE'] });
      assert.deepEqual(analyseMatch({ words: ['fast', 'race', 'drivers'] }, own).match, { words: ['driver'] });
    } finally {
      await engine.close();
    }
  });

  it('ranks through FTS5 while the index loads exactly as the loaded index does, in every language', async () => {
    const engine = openTestEngine(':memory:');
    try {
      // Enough documents for scores that differ; chunked whole (FTS5 ranks chunks, see issue-44).
      const many = Array.from({ length: 60 }, (_v, i) => ({
        ...corpus[i % corpus.length]!,
        id: `m${i}`,
        content: `${corpus[i % corpus.length]!.content} ${corpus[(i * 7) % corpus.length]!.content}`,
        visibility: i % 4 === 0 ? ('private' as const) : ('public' as const),
        chunk_size: 4096,
      }));
      await engine.add(viewer, many, (i) => `[${i}]`);
      const cases: [string, QueryAnalysis, 'match' | 'phrase'][] = [
        ['Häuser Buch', queryAnalysis(undefined, 'de'), 'match'],
        ['die häuser', queryAnalysis(undefined, 'de'), 'phrase'],
        ['chevaux ete', queryAnalysis(undefined, 'fr'), 'match'],
        ['car river', queryAnalysis({ synonyms: [['car', 'automobile']] }), 'match'],
      ];
      // Documents of the same text tie: compared in one order (score, then id).
      const view = (hits: ReturnType<TestEngine['search']['textHits']>) =>
        hits
          .map((h) => ({ id: h.doc.id, score: Math.round(h.score * 1e9) / 1e9 }))
          .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
      const fts = cases.map(([q, analysis, type]) => {
        const match = analyseMatch(textMatch(q, type)!, analysis).match;
        return view(engine.search.group(scope, ftsRanked(engine.search, scope, match, 10_000)));
      });
      assert.equal(engine.text.ranked(tenant), undefined, 'not loaded yet');
      const duringLoad = cases.map(([q, analysis, type]) =>
        view(textSearch(engine.search, scope, q, type, 50, analysis).hits),
      );
      await engine.text.loaded(tenant);
      const loaded = cases.map(([q, analysis, type]) =>
        view(textSearch(engine.search, scope, q, type, 50, analysis).hits),
      );
      for (let i = 0; i < cases.length; i += 1) {
        assert.ok(loaded[i]!.length > 0, cases[i]![0]);
        assert.deepEqual(loaded[i], fts[i], cases[i]![0]);
        assert.deepEqual(duringLoad[i], fts[i], cases[i]![0]);
      }
    } finally {
      await engine.close();
    }
  });

  it('keeps its answers over a restart, from the checkpoint', async () => {
    const dataDir = tempDir();
    const first = openTestEngine(dataDir);
    const de = queryAnalysis(undefined, 'de');
    await first.add(viewer, corpus, (i) => `[${i}]`);
    await first.text.loaded(tenant);
    const before = ids(first, 'Häuser cheval', de);
    await first.close(); // saves the in-memory index
    const second = openTestEngine(dataDir);
    try {
      await second.text.loaded(tenant);
      assert.equal(second.text.counters().checkpoint, 1, 'read back from its checkpoint');
      assert.deepEqual(ids(second, 'Häuser cheval', de), before);
      assert.deepEqual(ids(second, 'hauser', de), ['de-1', 'de-2']);
    } finally {
      await second.close();
    }
  });

  it('reanalyses text tables of the older analysis (FTS5 porter over raw text) when the store opens', async () => {
    const dataDir = tempDir();
    const first = openTestEngine(dataDir);
    await first.add(viewer, corpus, (i) => `[${i}]`);
    await first.text.loaded(tenant);
    await first.close();
    // What a store written before per-language analysis holds: FTS5 tables with the porter tokenizer over the raw
    // title and content (a checkpoint of it would be of analysis version 1, which is never read back).
    const db = new Database(join(dataDir, 'godb.sqlite'));
    const key = db.prepare('SELECT key FROM tenant_text_indexes WHERE tenant_id = ?').pluck().get(tenant) as number;
    const raw = `SELECT c.seq, d.title, c.content FROM chunks c JOIN documents d ON d.seq = c.doc_seq
      WHERE d.deleted_at IS NULL AND d.superseded = 0`;
    db.exec(`
      DROP TABLE pvocab_${key}; DROP TABLE fts_${key}; DROP TABLE hidden_${key};
      CREATE VIRTUAL TABLE fts_${key} USING fts5(title, content, tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE hidden_${key} USING fts5(title, content, tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE pvocab_${key} USING fts5vocab(fts_${key}, 'row');
      INSERT INTO fts_${key} (fts_${key}, rank) VALUES ('rank', 'bm25(2, 1)');
      INSERT INTO fts_${key} (rowid, title, content) ${raw};
    `);
    db.close();
    const upgraded = openTestEngine(dataDir);
    try {
      const de = queryAnalysis(undefined, 'de');
      // FTS5 answers at once (the index loads in the background) with the new analysis.
      assert.equal(upgraded.text.ranked(tenant), undefined);
      assert.deepEqual(ids(upgraded, 'Häuser', de), ['de-1', 'de-2']);
      await upgraded.text.loaded(tenant);
      assert.equal(upgraded.text.counters().checkpoint, 0, 'the older checkpoint is not read back');
      assert.deepEqual(ids(upgraded, 'Häuser', de), ['de-1', 'de-2']);
      assert.deepEqual(ids(upgraded, 'cheval', queryAnalysis(undefined, 'fr')), ['fr-1', 'fr-2']);
      assert.deepEqual(ids(upgraded, 'house', queryAnalysis(undefined)), ['en-1']);
    } finally {
      await upgraded.close();
    }
  });
});

describe('highlighting', () => {
  it('marks the matched words of the document language and escapes the rest', () => {
    const [fr] = highlightPassages('Les <chevaux> & "le" cheval', new Set(indexTerms('cheval', 'fr')), 'fr');
    assert.equal(fr!.passage, 'Les &lt;<em>chevaux</em>&gt; &amp; &quot;le&quot; <em>cheval</em>');
    const [de] = highlightPassages("Die Häuser, ein Haus's Garten", new Set(indexTerms('haus', 'de')), 'de');
    assert.equal(de!.passage, 'Die <em>Häuser</em>, ein <em>Haus</em>&#39;s Garten');
    assert.deepEqual(highlightPassages('nothing here', new Set(['cheval']), 'fr'), []);
  });

  it('answers the best passages of long text, each cut at words, once across overlapping chunks', () => {
    const filler = (n: number) => Array.from({ length: n }, (_v, i) => `word${i}`).join(' ');
    const text = `${filler(40)} shock ${filler(40)} shock wave ${filler(40)}`;
    const terms = new Set(indexTerms('shock wave'));
    const passages = highlightPassages(text, terms, 'en');
    assert.equal(passages.length, 2);
    assert.match(passages[0]!.passage, /<em>shock<\/em> <em>wave<\/em>/, 'the passage with both terms first');
    for (const { passage } of passages) {
      assert.ok(passage.length < 240, passage);
      assert.ok(text.includes(passage.replace(/<\/?em>/g, '')), 'whole words of the text');
    }
    assert.equal(hitHighlights([text, text], terms, 'en').length, 2, 'a passage shared by two chunks once');
    // Only the first 10,000 characters of a chunk are looked at.
    const long = `${'x '.repeat(6000)}shock`;
    assert.deepEqual(highlightPassages(long, terms, 'en'), []);
    assert.equal(highlightPassages(`shock ${long}`, terms, 'en').length, 1);
  });
});
