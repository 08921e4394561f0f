import { Type } from '@sinclair/typebox';
import { Name } from './common.js';
import { StoredDocument } from './document.js';
import { Filters } from './search.js';

const table = (description: string) => Name({ description });

export const CountDocumentsRequest = Type.Object(
  {
    primary_table: Type.Optional(table('The collection; all of them when absent.')),
    filter: Type.Optional(Filters),
  },
  { additionalProperties: false },
);

export const ScrollDocumentsRequest = Type.Object(
  {
    primary_table: Type.Optional(table('The collection; all of them when absent.')),
    filter: Type.Optional(Filters),
    limit: Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: 100,
      description: 'Documents per page (at most 1,000).',
    }),
    cursor: Type.Optional(
      Type.String({ maxLength: 1024, description: 'The next_cursor of the previous page; absent for the first.' }),
    ),
    with_vectors: Type.Boolean({
      default: false,
      description: 'Include each document’s vectors (yours by name, and its chunks’ model vectors): the way to export.',
    }),
  },
  { additionalProperties: false },
);

export const ScrollDocumentsResponse = Type.Object({
  documents: Type.Array(StoredDocument),
  next_cursor: Type.Optional(
    Type.String({ description: 'Pass it as `cursor` for the next page; absent on the last page.' }),
  ),
});

export const DeleteDocumentsRequest = Type.Object(
  {
    primary_table: table('The collection to delete from.'),
    filter: Filters,
    permanent: Type.Boolean({ default: false, description: 'Remove from the store and every index.' }),
  },
  { additionalProperties: false },
);

export const DeleteDocumentsResponse = Type.Object({
  success: Type.Literal(true),
  deleted: Type.Integer({ description: 'Documents deleted.' }),
  skipped: Type.Integer({
    description: 'Matching documents you may read but not delete (the owner role is needed); left in place.',
  }),
});
