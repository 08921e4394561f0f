import { Type, type SchemaOptions, type Static, type TUnsafe } from '@sinclair/typebox';

/**
 * A closed set of literal values as a JSON-schema `enum` (not TypeBox's anyOf of consts), so a validation error
 * lists the allowed values and the playground renders a select.
 */
export function Enum<const T extends readonly (string | number)[]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  const type = values.every((v) => typeof v === 'number') ? 'integer' : 'string';
  return Type.Unsafe<T[number]>({ ...options, type, enum: [...values] });
}

/** The one error body every API error answers with. */
export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable SCREAMING_SNAKE code from the error catalogue.' }),
      message: Type.String({ description: 'What went wrong and how to fix it.' }),
      status: Type.Integer({ description: 'The HTTP status, repeated for clients that only keep the body.' }),
      field: Type.Optional(Type.String({ description: 'The offending field as a dotted path, e.g. body.email.' })),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      request_id: Type.String({ description: 'Quote it when reporting a problem; it is in the server log.' }),
    }),
  },
  { $id: 'ErrorBody', description: 'Every non-2xx answer of the API.' },
);
export type ErrorBody = Static<typeof ErrorBody>;

export const SuccessMessage = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
});
export type SuccessMessage = Static<typeof SuccessMessage>;

/**
 * Bounds of request fields, chosen so no real client meets them and every request stays cheap (see
 * docs/decisions/0043). The router's path-parameter limit derives from {@link inputLimits.pathId}, so an id
 * that can be created can always be read, and so can its earlier versions.
 */
export const inputLimits = {
  /** Characters of a document (or other object) id. */
  id: 256,
  /** Characters of an id in a path: an id, or an earlier version's `<id>@v<version>` (up to 10 digits). */
  pathId: 256 + 12,
  /**
   * Characters of a keyword query (text, fuzzy, faceted, multi-table, the search box): as long as an embedded one, so
   * an ordinary long question is answered; the cost is bounded by {@link inputLimits.keywordTerms} instead.
   */
  keywordQuery: 4096,
  /**
   * Distinct terms (after analysis) a keyword query is ranked by at most: beyond them, the most selective are kept
   * (those the fewest public chunks hold), so a long question costs as much as a short one of its rarest words.
   */
  keywordTerms: 64,
  /** Distinct words of a fuzzy query expanded at most (each edit-distance expansion reads the vocabulary). */
  fuzzyWords: 32,
  /** Characters of a query that is embedded (vector, hybrid, smart). */
  semanticQuery: 4096,
  /** Characters of a short name: a table, a field, a model, a tag, an edge type. */
  name: 256,
  /** Characters of a title, a URL or another one-line text. */
  line: 4096,
  /** Characters of a structured parameter sent as its JSON text (filters, join_conditions, vector). */
  jsonText: 262_144,
  /** Items of a list of names (tags, categories, access_list, node_types). */
  names: 1024,
  /** Tables of a multi-table search. */
  tables: 32,
  /** Facets of a faceted search. */
  facets: 32,
  /** Filter clauses (or equality pairs) of a search. */
  filters: 64,
  /** Join conditions of a multi-table search. */
  joins: 32,
  /** Node ids of a graph query. */
  nodeIds: 10_000,
  /** ACL entries of a document or an ACL update. */
  aclEntries: 1000,
  /** Declared edges (or child ids) of one document. */
  edges: 10_000,
  /** Keys of a metadata object. */
  metadataKeys: 1000,
  /** Characters of one metadata value. */
  metadataValue: 65_536,
  /** Numbers of a query vector. */
  vectorDimensions: 8192,
  /** Non-zeros (index, value pairs) of one sparse vector (issue #42). */
  sparseNonZeros: 1024,
  /** The largest index of a sparse vector: an unsigned 32-bit integer, as SPLADE and BM25 vocabularies use. */
  sparseIndex: 4_294_967_295,
  /**
   * Postings one sparse query may read (issue #42): its scoring runs in one synchronous pass, so a search never sees
   * half of a write, and this bounds how long that pass holds the thread (decision 0058 has the measured times).
   */
  sparseQueryPostings: 2_000_000,
  /** The largest Unix time accepted: 9999-12-31T23:59:59Z. */
  unixSeconds: 253_402_300_799,
  /** A count or amount added or set in one call (clicks, dwell time, offsets). */
  count: 1_000_000_000,
  /** Graph depth: deeper than any path a graph of the budgeted size can have in practice. */
  depth: 100,
  /** Kilometres: more than any distance on Earth, so "everything" still works. */
  radiusKm: 100_000,
  /** Magnitude of an edge weight or a free score. */
  magnitude: 1_000_000,
} as const;

export const Id = Type.String({ minLength: 1, maxLength: inputLimits.id, description: 'An identifier.' });
export const Uuid = Type.String({ format: 'uuid', maxLength: 36, description: 'A UUID.' });
export const UnixSeconds = Type.Integer({
  minimum: 0,
  maximum: inputLimits.unixSeconds,
  description: 'Unix time in seconds.',
});
/**
 * An ISO 8601 date (2024-05-01) or date-time (2024-05-01T12:00:00Z, 2024-05-01T14:00:00+02:00; UTC when no offset
 * is given). The pattern checks the form; the server checks the calendar (no 31 April) when it converts.
 */
export const isoDatePattern =
  '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])(T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,9})?)?(Z|[+-]([01]\\d|2[0-3]):?[0-5]\\d)?)?$';

/**
 * A date-like request field (created_at, updated_at, indexed_at, last_engaged, expires_at): Unix seconds, or an
 * ISO 8601 date or date-time. The server converts it to Unix seconds after validation (api-spec: date-like fields
 * are converted to Unix seconds), so use cases, storage and answers only ever see seconds, hence the static type.
 */
export const DateInput = Type.Unsafe<number>({
  type: ['integer', 'string'],
  minimum: 0,
  maximum: inputLimits.unixSeconds,
  maxLength: 40,
  pattern: isoDatePattern,
  description: 'Unix seconds, or an ISO 8601 date (2024-05-01) or date-time (2024-05-01T12:00:00Z); stored as seconds.',
});

/** A short name: a table, a field, a model, a tag. */
export const Name = (options: SchemaOptions = {}) => Type.String({ maxLength: inputLimits.name, ...options });
/** A one-line text: a title, a URL. */
export const Line = (options: SchemaOptions = {}) => Type.String({ maxLength: inputLimits.line, ...options });

/** A point given as [lat, lon] in degrees (the document `location` field). */
export const LatLon = Type.Tuple(
  [Type.Number({ minimum: -90, maximum: 90 }), Type.Number({ minimum: -180, maximum: 180 })],
  {
    description: '[lat, lon] in degrees',
  },
);

/** A point given as an object, as the vector search `center`. */
export const GeoPoint = Type.Object({
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  lon: Type.Number({ minimum: -180, maximum: 180 }),
});

export const Lat = Type.Number({ minimum: -90, maximum: 90, description: 'Latitude in degrees.' });
export const Lon = Type.Number({ minimum: -180, maximum: 180, description: 'Longitude in degrees.' });
export const RadiusKm = Type.Number({
  exclusiveMinimum: 0,
  maximum: inputLimits.radiusKm,
  description: 'Radius in kilometres.',
});

/**
 * Document metadata: any JSON values — strings, numbers, booleans, lists and nested objects; filters and facets
 * reach nested keys with dots (metadata.specs.weight). Bounded by key count, key length and the body limit.
 */
export const Metadata = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Metadata: any JSON values (strings, numbers, booleans, lists, nested objects); filters reach nested keys with dots, e.g. metadata.specs.weight.',
  maxProperties: inputLimits.metadataKeys,
  propertyNames: { maxLength: inputLimits.name },
});

export const StringMap = Type.Record(
  Type.String(),
  Type.Union([Type.String({ maxLength: inputLimits.metadataValue }), Type.Number(), Type.Boolean()]),
  {
    description: 'Metadata: string keys; string values (numbers and booleans are kept as such for range filters).',
    maxProperties: inputLimits.metadataKeys,
    propertyNames: { maxLength: inputLimits.name },
  },
);

export const PathId = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: inputLimits.pathId,
    description: 'A document id, or `<id>@v<version>` for an earlier version.',
  }),
});
