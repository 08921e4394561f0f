/**
 * Scalar quantization of one embedding, for storage and for users choosing a trade-off:
 *
 * - linear: 2^b uniform levels over [min, max] of the vector; code = round((v − min) / (max − min) · (2^b − 1)).
 * - kmeans: a codebook of k = min(kmeans_clusters, 2^b, dimensions) centroids found by 1-D k-means (Lloyd's
 *   algorithm from quantile seeds, so the result is deterministic); code = index of the nearest centroid.
 * - binary: one sign bit per dimension (bit_width is 1 whatever was asked); dequantized as ±mean(|v|).
 *
 * compression_ratio = 32 / bits per dimension (the codes against float32). The per-vector parameters (min and
 * max, or the codebook) are reported separately in `overhead_bytes`.
 */
export type QuantizationMethod = 'linear' | 'kmeans' | 'binary';

export interface Quantized {
  readonly method: QuantizationMethod;
  readonly bitWidth: number;
  readonly codes: number[];
  readonly minVal: number;
  readonly maxVal: number;
  readonly codebook?: number[];
  /** dequantize(codes) */
  readonly reconstruction: Float32Array;
  readonly compressionRatio: number;
  /** Root-mean-square error between the vector and its reconstruction. */
  readonly rmse: number;
  readonly overheadBytes: number;
}

function range(vector: Float32Array): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (const v of vector) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return [min, max];
}

function rmse(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i]! - b[i]!) ** 2;
  return Math.sqrt(sum / a.length);
}

function linear(vector: Float32Array, bits: number, min: number, max: number) {
  const levels = 2 ** bits - 1;
  const span = max - min;
  const codes = Array.from(vector, (v) => (span === 0 ? 0 : Math.round(((v - min) / span) * levels)));
  const reconstruction = Float32Array.from(codes, (q) => (span === 0 ? min : min + (q / levels) * span));
  return { codes, reconstruction, overheadBytes: 8 };
}

/** 1-D k-means; returns sorted centroids. */
export function kmeans1d(values: Float32Array, k: number, iterations = 50): number[] {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  let centroids = Array.from({ length: k }, (_v, i) => sorted[Math.min(n - 1, Math.floor(((i + 0.5) / k) * n))]!);
  centroids = [...new Set(centroids)];
  for (let iteration = 0; iteration < iterations; iteration += 1) {
    const sums = new Float64Array(centroids.length);
    const counts = new Int32Array(centroids.length);
    for (const v of sorted) {
      const c = nearest(centroids, v);
      sums[c]! += v;
      counts[c]! += 1;
    }
    const next = centroids.map((c, i) => (counts[i]! > 0 ? sums[i]! / counts[i]! : c));
    const moved = next.some((c, i) => Math.abs(c - centroids[i]!) > 1e-9);
    centroids = next;
    if (!moved) break;
  }
  return centroids.sort((a, b) => a - b);
}

/** Index of the nearest value in a sorted array (binary search). */
function nearest(sorted: readonly number[], v: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && Math.abs(sorted[lo - 1]! - v) <= Math.abs(sorted[lo]! - v)) return lo - 1;
  return lo;
}

/**
 * Quantizes a vector.
 *
 * @example quantize(Float32Array.of(0, 0.5, 1), 'linear', 8).codes // [0, 128, 255]
 */
export function quantize(
  vector: Float32Array,
  method: QuantizationMethod,
  bitWidth: number,
  kmeansClusters = 256,
): Quantized {
  const [minVal, maxVal] = range(vector);
  let result: { codes: number[]; reconstruction: Float32Array; overheadBytes: number; codebook?: number[] };
  let bits = bitWidth;
  if (method === 'linear') {
    result = linear(vector, bitWidth, minVal, maxVal);
  } else if (method === 'kmeans') {
    const k = Math.max(1, Math.min(kmeansClusters, 2 ** bitWidth, vector.length));
    const codebook = kmeans1d(vector, k);
    const codes = Array.from(vector, (v) => nearest(codebook, v));
    result = {
      codes,
      codebook,
      reconstruction: Float32Array.from(codes, (c) => codebook[c]!),
      overheadBytes: codebook.length * 4,
    };
  } else {
    bits = 1;
    let scale = 0;
    for (const v of vector) scale += Math.abs(v);
    scale /= vector.length || 1;
    const codes = Array.from(vector, (v) => (v >= 0 ? 1 : 0));
    result = { codes, reconstruction: Float32Array.from(codes, (c) => (c ? scale : -scale)), overheadBytes: 4 };
  }
  return {
    method,
    bitWidth: bits,
    codes: result.codes,
    minVal,
    maxVal,
    ...(result.codebook && { codebook: result.codebook }),
    reconstruction: result.reconstruction,
    compressionRatio: 32 / bits,
    rmse: rmse(vector, result.reconstruction),
    overheadBytes: result.overheadBytes,
  };
}
