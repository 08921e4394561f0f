import type { FieldIndexKind } from '@godb/contract';
import { badRequest, unsupported } from './envelope.js';

/** The GoDB vector name that holds a Qdrant collection's unnamed vector. */
export const unnamedVector = 'default';

const distances: Record<string, 'cosine' | 'euclidean' | 'dot'> = { Cosine: 'cosine', Euclid: 'euclidean', Dot: 'dot' };
const qdrantDistances: Record<string, string> = { cosine: 'Cosine', euclidean: 'Euclid', dot: 'Dot' };

/**
 * Settings that only tune speed, memory or placement in Qdrant: accepted and ignored (listed in
 * docs/qdrant-compatibility.md). Anything else unknown is refused.
 */
const ignoredCollectionFields = [
  'shard_number',
  'replication_factor',
  'write_consistency_factor',
  'on_disk_payload',
  'optimizers_config',
  'wal_config',
  'strict_mode_config',
  'timeout',
  'metadata',
];

interface GoDBVector {
  dimensions: number;
  distance: 'cosine' | 'euclidean' | 'dot';
  storage: 'f32' | 'f16' | 'i8' | 'b1';
  hnsw?: { m?: number; ef_construction?: number };
}

/**
 * A Qdrant `PUT /collections/{name}` body as GoDB's create-collection body. Unnamed vectors become GoDB's vector
 * `default`; named vectors keep their names. Features that would change results (sparse vectors, multivectors,
 * product quantization, custom sharding, another distance) answer 400 naming them.
 */
export function createBodyOf(name: string, body: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(body)) {
    if (value === null || value === undefined || ignoredCollectionFields.includes(key)) continue;
    if (key === 'vectors' || key === 'hnsw_config' || key === 'quantization_config') continue;
    if (key === 'sparse_vectors') throw unsupported('sparse_vectors (sparse vectors)');
    if (key === 'sharding_method') {
      if (value === 'auto') continue;
      throw unsupported('sharding_method "custom" (shard keys)');
    }
    if (key === 'init_from') throw unsupported('init_from');
    throw badRequest(`unknown collection field \`${key}\``);
  }
  const shared = { hnsw: hnswOf(body.hnsw_config), quantization: body.quantization_config };
  const given = body.vectors;
  if (!given || typeof given !== 'object' || Array.isArray(given)) {
    throw unsupported('a collection without dense vectors (give `vectors: {size, distance}`)');
  }
  const named: Record<string, GoDBVector> =
    'size' in given
      ? { [unnamedVector]: vectorOf(given as Record<string, unknown>, shared) }
      : Object.fromEntries(
          Object.entries(given).map(([vectorName, params]) => [
            vectorName,
            vectorOf(params as Record<string, unknown>, shared),
          ]),
        );
  if (Object.keys(named).length === 0) throw badRequest('vectors must name at least one vector');
  return { name, vectors: named, description: 'Created through the Qdrant-compatible API' };
}

function vectorOf(
  params: Record<string, unknown>,
  shared: { hnsw: GoDBVector['hnsw']; quantization: unknown },
): GoDBVector {
  if (!params || typeof params !== 'object') throw badRequest('each vector needs {size, distance}');
  const { size, distance, hnsw_config, quantization_config, on_disk, datatype, multivector_config, ...rest } = params;
  void on_disk;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw badRequest(`unknown vector field \`${unknown[0]}\``);
  if (multivector_config !== undefined && multivector_config !== null)
    throw unsupported('multivector_config (multivectors)');
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1)
    throw badRequest('vectors.size must be a positive integer');
  const mapped = typeof distance === 'string' ? distances[distance] : undefined;
  if (!mapped) throw unsupported(`distance ${JSON.stringify(distance)} (Cosine, Euclid and Dot are)`);
  if (datatype !== undefined && datatype !== null && datatype !== 'float32' && datatype !== 'float16') {
    throw unsupported(`datatype "${String(datatype)}" (float32 and float16 are)`);
  }
  const storage = storageOf(quantization_config ?? shared.quantization, datatype === 'float16' ? 'f16' : 'f32');
  const hnsw = { ...shared.hnsw, ...hnswOf(hnsw_config) };
  return { dimensions: size, distance: mapped, storage, ...(Object.keys(hnsw).length > 0 && { hnsw }) };
}

/**
 * Quantization: GoDB rescores every candidate from float32 copies, so scalar (int8) and binary quantization map to
 * its i8 and b1 index storage without changing scores; product quantization has no counterpart.
 */
function storageOf(quantization: unknown, fallback: GoDBVector['storage']): GoDBVector['storage'] {
  if (quantization === undefined || quantization === null) return fallback;
  const q = quantization as Record<string, unknown>;
  if ('scalar' in q) return 'i8';
  if ('binary' in q) return 'b1';
  if ('product' in q) throw unsupported('product quantization');
  throw badRequest('unknown quantization_config');
}

/** Qdrant's hnsw_config: m and ef_construct map to GoDB's; the rest only tunes indexing and is ignored. */
function hnswOf(config: unknown): GoDBVector['hnsw'] {
  if (config === undefined || config === null) return {};
  const c = config as Record<string, unknown>;
  if (c.m === 0) throw unsupported('hnsw_config.m = 0 (no HNSW graph)');
  return {
    ...(typeof c.m === 'number' && { m: c.m }),
    ...(typeof c.ef_construct === 'number' && { ef_construction: c.ef_construct }),
  };
}

interface GoDBCollectionInfo {
  name: string;
  vectors: Record<
    string,
    { dimensions: number; distance: string; storage: string; hnsw: { m: number; ef_construction: number } }
  >;
  documents: number;
  indexes?: Record<string, FieldIndexKind>;
  field_indexes?: Record<string, { documents: number; state: string }>;
  vector_stats?: Record<string, { indexed: number; vectors: number }>;
}

/** Whether a collection's vectors read as Qdrant's one unnamed vector. */
export const isUnnamed = (vectors: Record<string, unknown>): boolean =>
  Object.keys(vectors).length === 1 && unnamedVector in vectors;

/** GoDB's collection info as Qdrant's `GET /collections/{name}` result. */
export function qdrantInfoOf(info: GoDBCollectionInfo): Record<string, unknown> {
  const params = (v: GoDBCollectionInfo['vectors'][string]) => ({
    size: v.dimensions,
    distance: qdrantDistances[v.distance],
    ...(v.storage === 'f16' && { datatype: 'float16' }),
  });
  const first = Object.values(info.vectors)[0];
  const vectors = isUnnamed(info.vectors)
    ? params(info.vectors[unnamedVector] as GoDBCollectionInfo['vectors'][string])
    : Object.fromEntries(Object.entries(info.vectors).map(([n, v]) => [n, params(v)]));
  const indexed = Object.values(info.vector_stats ?? {}).reduce((sum, s) => sum + s.indexed, 0);
  return {
    status: 'green',
    optimizer_status: 'ok',
    indexed_vectors_count: indexed,
    points_count: info.documents,
    segments_count: 1,
    config: {
      params: { vectors, shard_number: 1, replication_factor: 1, write_consistency_factor: 1, on_disk_payload: false },
      hnsw_config: {
        m: first?.hnsw.m ?? 16,
        ef_construct: first?.hnsw.ef_construction ?? 200,
        full_scan_threshold: 10000,
        max_indexing_threads: 0,
        on_disk: false,
      },
      optimizer_config: {
        deleted_threshold: 0.2,
        vacuum_min_vector_number: 1000,
        default_segment_number: 0,
        max_segment_size: null,
        memmap_threshold: null,
        indexing_threshold: 20000,
        flush_interval_sec: 5,
        max_optimization_threads: null,
      },
      wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
      quantization_config: null,
    },
    payload_schema: payloadSchemaOf(info),
  };
}

/** Field indexes on `metadata.<key>` as Qdrant's payload schema (`{key: {data_type, points}}`). */
function payloadSchemaOf(info: GoDBCollectionInfo): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(info.indexes ?? {})
      .filter(([field]) => field.startsWith('metadata.'))
      .map(([field, kind]) => [
        field.slice('metadata.'.length),
        { data_type: kind, points: info.field_indexes?.[field]?.documents ?? 0 },
      ]),
  );
}

const indexKinds: Record<string, FieldIndexKind> = {
  keyword: 'keyword',
  integer: 'integer',
  float: 'float',
  bool: 'bool',
  datetime: 'datetime',
  uuid: 'keyword',
};

/**
 * A payload index's kind (`field_schema: "keyword"` or `{type: "keyword", …}`) as a GoDB field index kind. geo and
 * text have no GoDB field index (a text index would change what match text finds): 400 naming them.
 */
export function indexKindOf(schema: unknown): FieldIndexKind {
  const type = typeof schema === 'string' ? schema : (schema as { type?: unknown } | null)?.type;
  const kind = typeof type === 'string' ? indexKinds[type] : undefined;
  if (!kind)
    throw unsupported(
      `a payload index of type ${JSON.stringify(type)} (keyword, integer, float, bool, datetime and uuid are)`,
    );
  return kind;
}
