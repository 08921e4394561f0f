/**
 * Spherical k-means (cosine) for reclustering: k-means++ seeding from a seeded generator (deterministic), Lloyd
 * iterations on a sample of at most `sampleSize` vectors, then every vector is assigned to its nearest centroid.
 */
export interface KMeansResult {
  readonly centroids: Float32Array[];
  readonly assignments: Int32Array;
}

/** mulberry32: a small, fast, seeded generator. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i += 1) s += a[i]! * b[i]!;
  return s;
};

function nearest(vector: Float32Array, centroids: readonly Float32Array[]): number {
  let best = 0;
  let bestScore = -Infinity;
  centroids.forEach((c, i) => {
    const score = dot(vector, c);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  return best;
}

function normalize(v: Float32Array): Float32Array {
  const n = Math.sqrt(dot(v, v)) || 1;
  for (let i = 0; i < v.length; i += 1) v[i]! /= n;
  return v;
}

/** Clusters unit vectors into k groups. */
export function sphericalKMeans(
  vectors: readonly Float32Array[],
  k: number,
  options: { seed?: number; iterations?: number; sampleSize?: number } = {},
): KMeansResult {
  const random = seededRandom(options.seed ?? 42);
  const n = vectors.length;
  if (n === 0) return { centroids: [], assignments: new Int32Array(0) };
  const clusters = Math.max(1, Math.min(k, n));
  const sampleSize = Math.min(n, options.sampleSize ?? 10_000);
  const sample =
    n <= sampleSize ? vectors : Array.from({ length: sampleSize }, () => vectors[Math.floor(random() * n)]!);

  // k-means++ seeding on cosine distance.
  const centroids: Float32Array[] = [Float32Array.from(sample[Math.floor(random() * sample.length)]!)];
  const distance = new Float64Array(sample.length).fill(Infinity);
  while (centroids.length < clusters) {
    const last = centroids[centroids.length - 1]!;
    let total = 0;
    sample.forEach((v, i) => {
      distance[i] = Math.min(distance[i]!, Math.max(0, 1 - dot(v, last)));
      total += distance[i]! ** 2;
    });
    if (total === 0) break;
    let target = random() * total;
    let chosen = 0;
    for (; chosen < sample.length - 1; chosen += 1) {
      target -= distance[chosen]! ** 2;
      if (target <= 0) break;
    }
    centroids.push(Float32Array.from(sample[chosen]!));
  }

  const dims = vectors[0]!.length;
  for (let iteration = 0; iteration < (options.iterations ?? 20); iteration += 1) {
    const sums = centroids.map(() => new Float32Array(dims));
    const counts = new Int32Array(centroids.length);
    for (const v of sample) {
      const c = nearest(v, centroids);
      counts[c]! += 1;
      const sum = sums[c]!;
      for (let d = 0; d < dims; d += 1) sum[d]! += v[d]!;
    }
    let moved = false;
    sums.forEach((sum, c) => {
      if (counts[c] === 0) return;
      const next = normalize(sum);
      if (dot(next, centroids[c]!) < 1 - 1e-6) moved = true;
      centroids[c] = next;
    });
    if (!moved) break;
  }
  const assignments = Int32Array.from(vectors, (v) => nearest(v, centroids));
  return { centroids, assignments };
}
