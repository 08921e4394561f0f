import { test } from 'node:test';
import assert from 'node:assert/strict';
import { documentationSlugs } from '@godb/contract/site-routes';
import { docSections } from './doc-sections.js';

// The server answers 404 for a /documentation/<slug> the contract does not list, so a section the web adds
// without listing it there would be served as an error page on a reload.
test('the documentation sections are the ones the server serves', () => {
  assert.deepEqual(
    docSections.map((s) => s.slug),
    [...documentationSlugs],
  );
});
