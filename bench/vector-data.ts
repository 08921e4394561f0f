// The data of `npm run bench:vector`: deterministic clustered vectors as a client would send them, their exact
// nearest neighbours (unfiltered and within a filter's allowed set), and recall against them.
import { BatchMatches, exactSearch, MetricKind } from 'usearch';
import { random } from './engine-fixture.js';

/** Significant digits of each number sent over JSON (about 10 characters per number instead of 20). */
const digits = 6;

export interface VectorSet {
  readonly dims: number;
  readonly count: number;
  /** Row-major, `count × dims`: exactly the float32 values the server stores for the JSON this set sends. */
  readonly matrix: Float32Array;
  /** Euclidean length of each row (about 1: rows are unit vectors rounded to {@link digits} digits). */
  readonly norms: Float32Array;
}

/** Row `i` of a set. */
export const row = (set: VectorSet, i: number): Float32Array => set.matrix.subarray(i * set.dims, (i + 1) * set.dims);

/** Row `i` as a JSON array, the client's `vector` (each number round-trips to the same float32). */
export const rowJson = (set: VectorSet, i: number): string => {
  const v = row(set, i);
  let s = '[';
  for (let j = 0; j < v.length; j += 1) s += (j === 0 ? '' : ',') + v[j]!.toPrecision(digits);
  return `${s}]`;
};

/** `v / norm` as the server will hold it: the float32 of the decimal the client sends for each number. */
function rounded(v: Float64Array, norm: number): Float32Array {
  return Float32Array.from(v, (x) => Math.fround(Number((x / norm).toPrecision(digits))));
}

/**
 * `count` data vectors and `queries` query vectors of `dims` numbers: a mixture of 100 Gaussian clusters, each
 * vector made unit length (closer to real embeddings than uniform noise), the same for a given seed.
 *
 * @example const { data, queries } = clusteredVectors(100_000, 200, 512); // rowJson(data, 0) is document 0's vector
 */
export function clusteredVectors(count: number, queries: number, dims: number, seed = 11) {
  const next = random(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(next() || 1e-12)) * Math.cos(2 * Math.PI * next());
  const centers = Array.from({ length: 100 }, () => Float64Array.from({ length: dims }, gaussian));
  const make = (rows: number): VectorSet => {
    const matrix = new Float32Array(rows * dims);
    const norms = new Float32Array(rows);
    const v = new Float64Array(dims);
    for (let i = 0; i < rows; i += 1) {
      const c = centers[Math.floor(next() * centers.length)]!;
      let sum = 0;
      for (let j = 0; j < dims; j += 1) {
        v[j] = c[j]! + 0.9 * gaussian();
        sum += v[j]! * v[j]!;
      }
      matrix.set(rounded(v, Math.sqrt(sum)), i * dims);
      norms[i] = Math.hypot(...matrix.subarray(i * dims, (i + 1) * dims));
    }
    return { dims, count: rows, matrix, norms };
  };
  const data = make(count);
  return { data, queries: make(queries) };
}

/**
 * Like {@link clusteredVectors}, but each cluster's vectors spread along a `latent`-dimensional subspace of their
 * own (plus a little noise in every direction) instead of in all 512 directions at once. Measured text embeddings
 * have a local intrinsic dimension of a few tens, not hundreds; noise in all 512 directions makes every vector
 * of a 10,000-vector cluster almost equally far from a query, the worst case of any graph index (raw usearch with
 * the default ef_search 100 fell from recall@10 0.99 at 100k to 0.72 at 1M on it). `bench:scale` uses this set so
 * that its recall says what users' embeddings would get; `bench:vector` keeps the harder one.
 *
 * @example const { data, queries } = embeddingLikeVectors(1_000_000, 200, 512); // 100 clusters, 48-d each
 */
export function embeddingLikeVectors(count: number, queries: number, dims: number, latent = 48, seed = 11) {
  const next = random(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(next() || 1e-12)) * Math.cos(2 * Math.PI * next());
  const clusters = 100;
  const centers = Array.from({ length: clusters }, () => Float64Array.from({ length: dims }, gaussian));
  const bases = Array.from({ length: clusters }, () => Float64Array.from({ length: dims * latent }, gaussian));
  const z = new Float64Array(latent);
  const make = (rows: number): VectorSet => {
    const matrix = new Float32Array(rows * dims);
    const norms = new Float32Array(rows);
    const v = new Float64Array(dims);
    for (let i = 0; i < rows; i += 1) {
      const c = Math.floor(next() * clusters);
      const center = centers[c]!;
      const basis = bases[c]!;
      for (let l = 0; l < latent; l += 1) z[l] = gaussian() / Math.sqrt(latent);
      let sum = 0;
      for (let j = 0; j < dims; j += 1) {
        let x = center[j]! + 0.2 * gaussian();
        for (let l = 0; l < latent; l += 1) x += 0.9 * basis[j * latent + l]! * z[l]!;
        v[j] = x;
        sum += x * x;
      }
      matrix.set(rounded(v, Math.sqrt(sum)), i * dims);
      norms[i] = Math.hypot(...matrix.subarray(i * dims, (i + 1) * dims));
    }
    return { dims, count: rows, matrix, norms };
  };
  const data = make(count);
  return { data, queries: make(queries) };
}

/** Cosine similarity of data row `i` and a query row. */
export function cosine(data: VectorSet, i: number, queries: VectorSet, q: number): number {
  const a = row(data, i);
  const b = row(queries, q);
  let s = 0;
  for (let j = 0; j < a.length; j += 1) s += a[j]! * b[j]!;
  return s / (data.norms[i]! * queries.norms[q]!);
}

/**
 * The exact top `k` by cosine of every query among the data rows that `allowed` keeps (all when absent), as data
 * row numbers, best first (usearch's exact search over a copy of the allowed rows).
 */
export function groundTruth(data: VectorSet, queries: VectorSet, k: number, allowed?: (i: number) => boolean) {
  const rows: number[] = [];
  for (let i = 0; i < data.count; i += 1) if (!allowed || allowed(i)) rows.push(i);
  const subset = allowed ? new Float32Array(rows.length * data.dims) : data.matrix;
  if (allowed) rows.forEach((r, j) => subset.set(row(data, r), j * data.dims));
  const found: number[][] = [];
  // In slices of queries, so that the result arrays stay small.
  for (let from = 0; from < queries.count; from += 50) {
    const to = Math.min(queries.count, from + 50);
    // A copy: usearch's exact search reads a typed array from the start of its buffer, ignoring a view's offset.
    const batch = queries.matrix.slice(from * data.dims, to * data.dims);
    const result = exactSearch(subset, batch, data.dims, k, MetricKind.Cos, 0);
    for (let q = 0; q < to - from; q += 1) {
      const { keys } = result instanceof BatchMatches ? result.get(q) : result;
      found.push(Array.from(keys, (key) => rows[Number(key)]!));
    }
  }
  return found;
}

/** Mean fraction of each query's expected top k that was found. */
export function recall(found: readonly (readonly number[])[], expected: readonly (readonly number[])[]): number {
  const k = expected[0]?.length ?? 1;
  let sum = 0;
  found.forEach((f, i) => {
    const want = new Set(expected[i]);
    sum += f.filter((x) => want.has(x)).length / k;
  });
  return sum / found.length;
}
