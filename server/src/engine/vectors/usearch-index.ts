import { Index, MetricKind, ScalarKind } from 'usearch';
import type { SpaceSettings } from '../collections/vector-space.js';

/** HNSW parameters used when a space's settings give none (model spaces of the engine's defaults). */
export interface HnswDefaults {
  readonly connectivity: number;
  readonly expansionAdd: number;
  readonly expansionSearch: number;
}

/** usearch's metric for a space: bits compare by Hamming distance, the others by the space's distance. */
const metricOf = (settings: SpaceSettings): MetricKind =>
  settings.storage === 'b1'
    ? MetricKind.Hamming
    : settings.distance === 'euclidean'
      ? MetricKind.L2sq
      : settings.distance === 'dot'
        ? MetricKind.IP
        : MetricKind.Cos;

/** usearch's quantization for a storage kind. */
const scalarOf: Record<SpaceSettings['storage'], ScalarKind> = {
  f32: ScalarKind.F32,
  f16: ScalarKind.F16,
  i8: ScalarKind.I8,
  b1: ScalarKind.B1,
};

/**
 * A new, empty HNSW index for a space: its metric, quantization and HNSW parameters, or (no settings) cosine over
 * f16 with the defaults.
 *
 * @example const index = newIndex(settings, defaults, 512); index.add(7n, vector, 0);
 */
export function newIndex(settings: SpaceSettings | undefined, defaults: HnswDefaults, dims: number): Index {
  return new Index({
    dimensions: dims,
    metric: settings ? metricOf(settings) : MetricKind.Cos,
    quantization: settings ? scalarOf[settings.storage] : ScalarKind.F16,
    connectivity: settings?.hnsw.m ?? defaults.connectivity,
    expansion_add: settings?.hnsw.ef_construction ?? defaults.expansionAdd,
    expansion_search: settings?.hnsw.ef_search ?? defaults.expansionSearch,
    multi: false,
  });
}

/**
 * An index file read into a new index made by `make`; undefined when it cannot be read. Callers make sure it is
 * there and is the file that was saved: readSpaceFile checks it against its metadata's checksum, and a reload reads
 * the file it has just saved.
 */
export function readIndex(path: string, make: () => Index): Index | undefined {
  try {
    const index = make();
    index.load(path);
    return index;
  } catch {
    return undefined;
  }
}

/** A stored vector as the index and its copies hold it: unit length for cosine (so a dot product is the cosine). */
export function asIndexed(settings: SpaceSettings, blob: Buffer | Float32Array, dims: number): Float32Array {
  const vector = blob instanceof Float32Array ? blob : new Float32Array(blob.buffer, blob.byteOffset, dims);
  if (settings.distance !== 'cosine' || settings.source.kind === 'chunks') return vector; // model vectors are unit
  let sum = 0;
  for (let i = 0; i < vector.length; i += 1) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  if (!(norm > 0)) return vector;
  const unit = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i += 1) unit[i] = vector[i]! / norm;
  return unit;
}
