import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { matchesFilters, parseFilters } from './filters.js';

// in / nin check a value against their list through a set of texts: the answer must be the element-by-element
// `equal` (a === b, or both non-null with the same text) for every mix of types, lists and nulls.
const equal = (a: unknown, b: unknown) =>
  a === b || (a !== undefined && a !== null && b !== undefined && b !== null && String(a) === String(b));

test('in and nin answer what comparing each element answers, for every mix of types', () => {
  const next = seededRandom(4343);
  const pool: unknown[] = [0, 1, 2.5, -1, '0', '1', '2.5', 'a', 'A', '', true, false, 'true', 'false', null];
  const pick = () => pool[Math.floor(next() * pool.length)];
  for (let i = 0; i < 3000; i += 1) {
    const list = Array.from({ length: 1 + Math.floor(next() * 5) }, pick).filter((v) => v !== null || next() < 0.5);
    const r = next();
    const value = r < 0.1 ? undefined : r < 0.4 ? Array.from({ length: Math.floor(next() * 3) }, pick) : pick();
    const values = Array.isArray(value) ? value : [value];
    const expected = values.some((v) => list.some((w) => equal(v, w)));
    const doc = {
      id: 'd',
      title: '',
      content: '',
      primary_table: 'c',
      visibility: 'public',
      created_at: 0,
      updated_at: 0,
      parent_doc_id: null,
      cluster: null,
      fields: { metadata: value === undefined ? {} : { x: value } },
    };
    for (const operator of ['in', 'nin'] as const) {
      const filters = parseFilters([{ field: 'metadata.x', operator, value: list }])!;
      assert.equal(
        matchesFilters(doc, filters),
        operator === 'in' ? expected : !expected,
        `${JSON.stringify(value)} ${operator} ${JSON.stringify(list)}`,
      );
    }
  }
});
