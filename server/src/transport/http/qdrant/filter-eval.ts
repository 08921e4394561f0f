import { badRequest, unsupported } from './envelope.js';
import { canonicalId } from './point-ids.js';

type Json = unknown;
type Payload = Record<string, unknown>;

/** What a condition is checked against: the point's canonical id (absent inside `nested`) and its payload. */
export interface Candidate {
  readonly id?: string;
  readonly payload: Payload;
}

/**
 * Qdrant's filter language, checked against one point exactly as Qdrant's condition checker does (its semantics,
 * written again here): `must` all, `should` at least one, `must_not` none, `min_should` at least `min_count`; a
 * field condition is true when any of the field's values matches, and false for a missing field except `is_empty`,
 * `is_null: false`-style checks and `values_count` of zero. GoDB's own filters are used only to narrow the
 * candidates first (filter-prefilter.ts); this decides.
 *
 * @example matchesQdrantFilter({ must: [{ key: 'city', match: { value: 'Oslo' } }] }, { payload: { city: 'Oslo' } }) // true
 */
export function matchesQdrantFilter(filter: Json, point: Candidate): boolean {
  if (filter === null || filter === undefined) return true;
  if (typeof filter !== 'object' || Array.isArray(filter)) throw badRequest('filter must be an object');
  const f = filter as Record<string, unknown>;
  for (const key of Object.keys(f)) {
    if (!['must', 'should', 'must_not', 'min_should'].includes(key))
      throw badRequest(`unknown filter field \`${key}\``);
  }
  const must = conditionList(f.must);
  const should = conditionList(f.should);
  const mustNot = conditionList(f.must_not);
  if (!must.every((c) => matchesCondition(c, point))) return false;
  if (mustNot.some((c) => matchesCondition(c, point))) return false;
  if (should.length > 0 && !should.some((c) => matchesCondition(c, point))) return false;
  if (f.min_should !== undefined && f.min_should !== null) {
    const min = f.min_should as { conditions?: unknown; min_count?: unknown };
    const conditions = conditionList(min.conditions);
    if (typeof min.min_count !== 'number') throw badRequest('min_should.min_count must be a number');
    if (conditions.filter((c) => matchesCondition(c, point)).length < min.min_count) return false;
  }
  return true;
}

/** `must: condition` and `must: [conditions]` are both Qdrant. */
export function conditionList(value: unknown): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  for (const c of list)
    if (!c || typeof c !== 'object' || Array.isArray(c)) throw badRequest('a condition must be an object');
  return list as Record<string, unknown>[];
}

function matchesCondition(c: Record<string, unknown>, point: Candidate): boolean {
  if ('key' in c) return matchesField(c, point.payload);
  if ('has_id' in c) {
    if (point.id === undefined) throw badRequest('has_id cannot be used inside nested');
    const ids = Array.isArray(c.has_id) ? c.has_id : [];
    return ids.some((id) => canonicalId(id) === point.id);
  }
  if ('is_empty' in c) return isEmpty(valueAt(point.payload, keyOf(c.is_empty)));
  if ('is_null' in c) return isNull(valueAt(point.payload, keyOf(c.is_null)));
  if ('nested' in c) {
    const nested = c.nested as { key?: unknown; filter?: unknown };
    if (typeof nested?.key !== 'string') throw badRequest('nested.key must be a string');
    const objects = valuesAt(point.payload, nested.key).filter(
      (v): v is Payload => typeof v === 'object' && v !== null && !Array.isArray(v),
    );
    return objects.some((object) => matchesQdrantFilter(nested.filter, { payload: object }));
  }
  if ('has_vector' in c) throw unsupported('the has_vector condition');
  if ('must' in c || 'should' in c || 'must_not' in c || 'min_should' in c) return matchesQdrantFilter(c, point);
  throw badRequest(`unknown condition ${JSON.stringify(Object.keys(c))}`);
}

const keyOf = (value: unknown): string => {
  const key = (value as { key?: unknown } | null)?.key;
  if (typeof key !== 'string') throw badRequest('the condition needs a key');
  return key;
};

/** A field condition: `match`, `range`, geo, `values_count`, `is_empty`, `is_null`, any one of them. */
function matchesField(c: Record<string, unknown>, payload: Payload): boolean {
  const key = c.key;
  if (typeof key !== 'string') throw badRequest('key must be a string');
  if (c.geo_polygon !== undefined && c.geo_polygon !== null) throw unsupported('the geo_polygon condition');
  const raw = valueAt(payload, key);
  if (c.is_empty !== undefined && c.is_empty !== null) return isEmpty(raw) === Boolean(c.is_empty);
  if (c.is_null !== undefined && c.is_null !== null) return isNull(raw) === Boolean(c.is_null);
  const values = valuesAt(payload, key);
  if (c.values_count !== undefined && c.values_count !== null) {
    return inRange(countOf(raw), c.values_count as Record<string, unknown>);
  }
  if (values.length === 0) return false;
  if (c.match !== undefined && c.match !== null) return values.some((v) => matchesMatch(c.match as Payload, v));
  if (c.range !== undefined && c.range !== null) {
    const range = c.range as Record<string, unknown>;
    const dated = Object.values(range).some((b) => typeof b === 'string');
    return values.some((v) => (dated ? inDateRange(v, range) : typeof v === 'number' && inRange(v, range)));
  }
  if (c.geo_radius !== undefined && c.geo_radius !== null) {
    const g = c.geo_radius as { center?: { lat?: unknown; lon?: unknown }; radius?: unknown };
    const center = geoPoint(g.center);
    if (!center || typeof g.radius !== 'number') throw badRequest('geo_radius needs center {lat, lon} and radius');
    return values.some((v) => {
      const p = geoPoint(v);
      return p !== null && haversineMetres(center, p) <= (g.radius as number);
    });
  }
  if (c.geo_bounding_box !== undefined && c.geo_bounding_box !== null) {
    const box = c.geo_bounding_box as { top_left?: unknown; bottom_right?: unknown };
    const tl = geoPoint(box.top_left);
    const br = geoPoint(box.bottom_right);
    if (!tl || !br) throw badRequest('geo_bounding_box needs top_left and bottom_right {lat, lon}');
    return values.some((v) => {
      const p = geoPoint(v);
      if (!p || p.lat > tl.lat || p.lat < br.lat) return false;
      // A box across the antimeridian has its left edge east of its right one.
      return tl.lon <= br.lon ? p.lon >= tl.lon && p.lon <= br.lon : p.lon >= tl.lon || p.lon <= br.lon;
    });
  }
  throw badRequest(`the condition on \`${key}\` has no match, range, geo, values_count, is_empty or is_null`);
}

function matchesMatch(match: Payload, v: Json): boolean {
  if ('value' in match) {
    const want = match.value;
    if (typeof want === 'string') return v === want;
    if (typeof want === 'boolean') return v === want;
    if (typeof want === 'number') return typeof v === 'number' && Number.isInteger(v) && v === want;
    throw badRequest('match.value must be a string, an integer or a boolean');
  }
  if ('any' in match) {
    const list = match.any;
    if (!Array.isArray(list)) throw badRequest('match.any must be a list');
    return list.some((w) => (typeof w === 'number' ? typeof v === 'number' && v === w : v === w));
  }
  if ('except' in match) {
    const list = match.except;
    if (!Array.isArray(list)) throw badRequest('match.except must be a list');
    const ints = list.length > 0 && list.every((w) => typeof w === 'number');
    if (typeof v === 'string') return ints || !list.includes(v);
    if (typeof v === 'number') return !Number.isInteger(v) || !ints || !list.includes(v);
    return v !== null;
  }
  if ('text' in match) return typeof v === 'string' && typeof match.text === 'string' && v.includes(match.text);
  if ('phrase' in match) return typeof v === 'string' && typeof match.phrase === 'string' && v.includes(match.phrase);
  if ('text_any' in match) {
    const words = typeof match.text_any === 'string' ? match.text_any.split(/\s+/).filter(Boolean) : [];
    return typeof v === 'string' && words.some((w) => v.includes(w));
  }
  throw badRequest(`unknown match ${JSON.stringify(Object.keys(match))}`);
}

function inRange(n: number, range: Record<string, unknown>): boolean {
  const bound = (name: string) => {
    const b = range[name];
    if (b === undefined || b === null) return undefined;
    if (typeof b !== 'number') throw badRequest(`range.${name} must be a number`);
    return b;
  };
  const [gt, gte, lt, lte] = [bound('gt'), bound('gte'), bound('lt'), bound('lte')];
  return (
    (gt === undefined || n > gt) &&
    (gte === undefined || n >= gte) &&
    (lt === undefined || n < lt) &&
    (lte === undefined || n <= lte)
  );
}

/** A datetime range (RFC 3339 bounds): values are compared as instants, whatever their offsets. */
function inDateRange(v: Json, range: Record<string, unknown>): boolean {
  const at = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(at)) return false;
  const bounds: Record<string, number> = {};
  for (const [name, b] of Object.entries(range)) {
    if (b === undefined || b === null) continue;
    const t = typeof b === 'string' ? Date.parse(b) : Number.NaN;
    if (Number.isNaN(t)) throw badRequest(`range.${name} must be an RFC 3339 date-time`);
    bounds[name] = t;
  }
  return inRange(at, bounds);
}

/** The value at a Qdrant key (`a.b`, `a[].b`, `a[2]`), arrays of objects traversed; undefined when absent. */
export function valueAt(payload: Payload, key: string): Json {
  const found = walk(payload, key);
  if (found.length === 0) return undefined;
  return found.length === 1 ? found[0] : found;
}

/** The values a condition compares: the value at the key, a list giving its elements. */
export function valuesAt(payload: Payload, key: string): Json[] {
  return walk(payload, key).flatMap((v) => (Array.isArray(v) ? v : [v]));
}

function walk(payload: Payload, key: string): Json[] {
  let values: Json[] = [payload];
  for (const part of parseKey(key)) {
    values = values.flatMap((v): Json[] => {
      if (part === '[]') return Array.isArray(v) ? v : [];
      if (typeof part === 'number') return Array.isArray(v) && part < v.length ? [v[part]] : [];
      const objects = Array.isArray(v) ? v : [v];
      return objects.flatMap((o) =>
        o && typeof o === 'object' && !Array.isArray(o) && Object.hasOwn(o, part) ? [(o as Payload)[part]] : [],
      );
    });
  }
  return values.filter((v) => v !== undefined);
}

/** `a.b[].c[0]` → ['a', 'b', '[]', 'c', 0]; `"a.b"` quoted is one key. */
function parseKey(key: string): (string | number)[] {
  const parts: (string | number)[] = [];
  const pattern = /"([^"]*)"|([^.[\]]+)|\[(\d*)\]/g;
  for (const m of key.matchAll(pattern)) {
    if (m[1] !== undefined) parts.push(m[1]);
    else if (m[2] !== undefined) parts.push(m[2]);
    else parts.push(m[3] === '' ? '[]' : Number(m[3]));
  }
  return parts;
}

const isEmpty = (v: Json) => v === undefined || v === null || (Array.isArray(v) && v.length === 0);
const isNull = (v: Json) => v === null || (Array.isArray(v) && v.some((x) => x === null));
const countOf = (v: Json) => (v === undefined ? 0 : Array.isArray(v) ? v.length : 1);

function geoPoint(v: Json): { lat: number; lon: number } | null {
  const p = v as { lat?: unknown; lon?: unknown } | null;
  return p && typeof p.lat === 'number' && typeof p.lon === 'number' ? { lat: p.lat, lon: p.lon } : null;
}

/** Great-circle distance in metres (Qdrant's radius unit), on the mean Earth radius. */
function haversineMetres(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.min(1, Math.sqrt(h)));
}
