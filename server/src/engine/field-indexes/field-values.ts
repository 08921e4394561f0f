import { createError, fieldIndexKinds, type FieldIndexDeclarations, type FieldIndexKind } from '@godb/contract';

/** What a filter (and a field index) can read of a document. */
export interface FilterableDocument {
  readonly id: string;
  readonly title: string;
  readonly content: string;
  readonly primary_table: string;
  readonly visibility: string;
  readonly created_at: number;
  readonly updated_at: number;
  readonly parent_doc_id: string | null;
  readonly cluster: number | null;
  readonly fields: Record<string, unknown> & { metadata?: Record<string, unknown> };
  readonly lat?: number | null;
  readonly lon?: number | null;
}

export const topLevelFields = [
  'id',
  'title',
  'content',
  'primary_table',
  'visibility',
  'created_at',
  'updated_at',
  'parent_doc_id',
  'cluster',
] as const;

type Json = Record<string, unknown>;

/**
 * A metadata value by key: the key as it is (keys may contain dots), else a path into nested objects
 * (`metadata.specs.weight`); lists along the way give the values of their elements.
 */
function metadataValue(metadata: Record<string, unknown> | undefined, key: string): unknown {
  if (!metadata) return undefined;
  if (key in metadata) return metadata[key];
  let values: unknown[] = [metadata];
  for (const part of key.split('.')) {
    values = values.flatMap((v) => {
      if (Array.isArray(v))
        return v.flatMap((x) => (x && typeof x === 'object' && part in x ? [(x as Json)[part]] : []));
      return v && typeof v === 'object' && part in v ? [(v as Json)[part]] : [];
    });
    if (values.length === 0) return undefined;
  }
  return values.length === 1 ? values[0] : values.flat();
}

/**
 * The value of a field of a document: top-level fields, `location`, `metadata.<key>` and `engagement.<key>`. Filters
 * and field indexes read values through this one function, so an index holds exactly what a filter compares.
 */
export function fieldValue(doc: FilterableDocument, field: string): unknown {
  if (field === 'location')
    return doc.lat !== undefined && doc.lat !== null && doc.lon !== undefined && doc.lon !== null
      ? [doc.lat, doc.lon]
      : undefined;
  if (field.startsWith('metadata.')) return metadataValue(doc.fields.metadata, field.slice('metadata.'.length));
  if (field.startsWith('engagement.'))
    return (doc.fields.engagement as Record<string, unknown> | undefined)?.[field.slice('engagement.'.length)];
  if ((topLevelFields as readonly string[]).includes(field)) return doc[field as (typeof topLevelFields)[number]];
  return doc.fields[field];
}

/**
 * Fields an index may be declared on, with the kinds each takes. Left out: content (long text), engagement and
 * cluster (changed by other writes than a document's), visibility and updated_at (changed in place). `location`
 * takes a geo index: the R*Tree every located document is in already answers it, so it holds no postings.
 */
const keywordFields = [
  'id',
  'title',
  'parent_doc_id',
  'tags',
  'categories',
  'lang_code',
  'external_id',
  'source_url',
  'file_type',
  'content_type',
  'label',
];
const metadataPath = /^metadata\.[^.]+(\.[^.]+)*$/;

/** The kinds an index on `path` may have, or undefined when no index can be declared on it. */
function kindsFor(path: string): readonly FieldIndexKind[] | undefined {
  if (metadataPath.test(path)) return fieldIndexKinds.filter((kind) => kind !== 'geo');
  if (path === 'location') return ['geo'];
  if (path === 'created_at') return ['integer', 'float'];
  if (keywordFields.includes(path)) return ['keyword'];
  return undefined;
}

/**
 * Refuses a declaration of indexes on a field no index can be declared on, or of a kind the field cannot hold
 * (VALIDATION_FAILED naming `<at>.<path>`).
 */
export function refuseBadDeclarations(indexes: FieldIndexDeclarations, at: string): void {
  for (const [path, kind] of Object.entries(indexes)) {
    const field = `${at}.${path}`;
    if (!(fieldIndexKinds as readonly string[]).includes(kind)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${field}: unknown index kind "${String(kind)}" (one of: ${fieldIndexKinds.join(', ')})` },
        { field },
      );
    }
    const kinds = kindsFor(path);
    if (!kinds) {
      throw createError(
        'VALIDATION_FAILED',
        {
          detail: `${field}: no index can be declared on "${path}": index metadata.<key> (any kind but geo), created_at (integer or float), location (geo) or one of ${keywordFields.join(', ')} (keyword)`,
        },
        { field },
      );
    }
    if (!kinds.includes(kind)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${field}: "${path}" holds ${kinds.join(' or ')} values, not ${kind}` },
        { field },
      );
    }
  }
}

/** ISO 8601 dates and times (ASCII only, so that they compare as text the same in SQLite and in JavaScript). */
const isoDateTime = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

/** A value as an index of `kind` holds it, or undefined when the value is not of that kind. */
function keyOf(kind: FieldIndexKind, value: unknown): string | number | undefined {
  switch (kind) {
    case 'keyword':
      return typeof value === 'string' ? value : undefined;
    case 'datetime':
      return typeof value === 'string' && isoDateTime.test(value) ? value : undefined;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
    case 'float':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'bool':
      return typeof value === 'boolean' ? (value ? 1 : 0) : undefined;
    case 'geo':
      return undefined; // no postings: see kindsFor
  }
}

const kindWords: Record<FieldIndexKind, string> = {
  keyword: 'a string',
  datetime: 'an ISO 8601 date or time (2026-01-31 or 2026-01-31T12:00:00Z)',
  integer: 'a whole number',
  float: 'a number',
  bool: 'true or false',
  geo: 'a location',
};

/** What an index holds of one document's field: whether it has a value (not missing, not null) and its keys. */
export interface IndexedValue {
  readonly present: boolean;
  readonly keys: readonly (string | number)[];
}

/**
 * The keys an index of `kind` holds for a document's value of the field (each element of a list; null elements and
 * a missing or null value give none), or the first value of another type.
 */
export function indexedValue(kind: FieldIndexKind, value: unknown): IndexedValue | { readonly wrong: unknown } {
  if (value === undefined || value === null) return { present: false, keys: [] };
  const keys: (string | number)[] = [];
  for (const element of Array.isArray(value) ? value : [value]) {
    if (element === undefined || element === null) continue;
    const key = keyOf(kind, element);
    if (key === undefined) return { wrong: element };
    keys.push(key);
  }
  return { present: true, keys };
}

/** VALIDATION_FAILED for a value of another type than its field's index holds. */
export function wrongTypeError(field: string, path: string, kind: FieldIndexKind, wrong: unknown, collection: string) {
  return createError(
    'VALIDATION_FAILED',
    {
      detail: `${field} is ${JSON.stringify(wrong) ?? String(wrong)}, but collection ${collection} indexes ${path} as ${kind}: give ${kindWords[kind]}, or change the index (PATCH /api/v1/collections/${collection})`,
    },
    { field },
  );
}
