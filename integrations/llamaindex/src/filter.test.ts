import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toGoDBFilter } from './filter.js';

test('toGoDBFilter maps LlamaIndex operators and conditions to GoDB’s grammar over metadata', () => {
  assert.deepEqual(
    toGoDBFilter({
      filters: [
        { key: 'year', operator: '>=', value: 2020 },
        { key: 'specs.colour', operator: '==', value: 'red' },
      ],
    }),
    {
      must: [
        { field: 'metadata.year', operator: 'gte', value: 2020 },
        { field: 'metadata.specs.colour', operator: 'eq', value: 'red' },
      ],
    },
  );
  assert.deepEqual(
    toGoDBFilter({
      filters: [
        { key: 'a', operator: '!=', value: 1 },
        { key: 'tags', operator: 'all', value: ['x', 'y'] },
      ],
      condition: 'or',
    }),
    {
      should: [
        {
          must: [
            { field: 'metadata.a', operator: 'exists', value: true },
            { field: 'metadata.a', operator: 'ne', value: 1 },
          ],
        },
        {
          must: [
            { field: 'metadata.tags', operator: 'eq', value: 'x' },
            { field: 'metadata.tags', operator: 'eq', value: 'y' },
          ],
        },
      ],
    },
  );
});

test('toGoDBFilter refuses what it cannot map, naming it', () => {
  assert.throws(
    () => toGoDBFilter({ filters: [{ key: 'year', operator: 'near' as never, value: 1 }] }),
    /GoDB cannot map the metadata filter operator "near" on year: use one of ==, !=/,
  );
  assert.throws(
    () => toGoDBFilter({ filters: [{ key: 'a', operator: '==', value: 1 }], condition: 'not' as never }),
    /GoDB cannot map the filter condition "not": use and or or/,
  );
  assert.throws(
    () => toGoDBFilter({ filters: [{ key: 'a', operator: 'in', value: 'x' }] }),
    /The in filter on a needs a non-empty list/,
  );
  assert.throws(
    () => toGoDBFilter({ filters: [{ key: 'a', operator: '>', value: [1] }] }),
    /The > filter on a needs a string or a number/,
  );
  assert.throws(() => toGoDBFilter({ filters: [] }), /The metadata filters are empty/);
});
