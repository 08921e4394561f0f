import type { TestEngine } from './engine.js';
import { seededRandom } from '../engine/vectors/kmeans.js';
import { prepareDocument } from '../engine/documents/prepare.js';
import type { PreparedDocument, Viewer } from '../engine/documents/types.js';
import { vectorSearch } from '../engine/search/vector-search.js';

/** The local model whose 512 dimensions the engine's vector tests write precomputed vectors for. */
export const testModel = 'use-lite-512';
export const testDims = 512;

/** A unit vector: `v` divided by its length. */
export const normalised = (v: Float32Array): Float32Array => {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};

/**
 * `count` random unit vectors of `dims` numbers, the same for the same seed (mulberry32), so failures reproduce.
 *
 * @example const vectors = unitVectors(2100, 7);
 */
export function unitVectors(count: number, seed: number, dims = testDims): Float32Array[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => normalised(Float32Array.from({ length: dims }, () => next() - 0.5)));
}

/**
 * `count` random unit vectors of `dims` numbers of which only the first `rank` vary (the rest are 0): the same
 * neighbours as random `rank`-dimensional vectors. A test that needs an HNSW graph to find each vector's own document
 * first uses these: among random vectors of 512 dimensions (every distance alike, the graph's hardest case) a search
 * can miss it, and the graph, built on several threads, differs from run to run (a CI run failed so, once).
 *
 * @example const vectors = lowRankVectors(2600, 21);
 */
export function lowRankVectors(count: number, seed: number, rank = 16, dims = testDims): Float32Array[] {
  return unitVectors(count, seed, rank).map((low) => {
    const vector = new Float32Array(dims);
    vector.set(low);
    return vector;
  });
}

/**
 * Documents `v<from + i>` owned by `owner` with the given vectors, written through the engine as an import with
 * precomputed embeddings of `model`.
 *
 * @example writeVectors(engine, viewer, vectors.slice(0, 100), 0);
 */
export function writeVectors(
  engine: TestEngine,
  viewer: Viewer,
  vectors: Float32Array[],
  from: number,
  model = testModel,
): void {
  const prepared: PreparedDocument[] = vectors.map((vector, i) => ({
    ...prepareDocument(
      { id: `v${from + i}`, title: `v${from + i}`, embedding_options: { enabled: false } },
      'owner',
      'x',
    ),
    model,
    chunks: [{ content: `v${from + i}`, start: 0, end: 0, vector }],
  }));
  engine.commands.write(viewer, prepared, () => 'x');
}

/**
 * A cosine search for `vector` as `viewer`, every score allowed, through the engine's vector search.
 *
 * @example const { hits } = await searchNearest(engine, viewer, vectors[9]!);
 */
export const searchNearest = (engine: TestEngine, viewer: Viewer, vector: Float32Array, limit = 3) =>
  vectorSearch(
    engine.search,
    engine.embedder,
    { viewer, now: 1_800_000_000 },
    { vector: Array.from(vector), method: 'cosine', threshold: -1, limit },
  );

/** The ids of the three documents nearest to `vector`, best first. */
export const nearestIds = async (engine: TestEngine, viewer: Viewer, vector: Float32Array): Promise<string[]> =>
  (await searchNearest(engine, viewer, vector)).hits.map((h) => h.doc.id);

/**
 * A source of unit vectors of `dims` numbers around `centers` random centres (each number of a vector its centre's
 * plus `spread` times a normal draw), from `rnd`: the centres drawn now, each vector at its call, so a test that draws
 * more from `rnd` afterwards (prices, say) gets the same numbers as before. Clustered like real embeddings, where
 * filtered and access-restricted graph searches are harder than on uniform noise.
 *
 * @example const vectorNear = clusteredVectors(seededRandom(39), 16); const vectors = Array.from({ length: 100 }, vectorNear);
 */
export function clusteredVectors(rnd: () => number, dims: number, centers = 20, spread = 0.8): () => number[] {
  const gaussian = () => Math.sqrt(-2 * Math.log(rnd() || 1e-12)) * Math.cos(2 * Math.PI * rnd());
  const drawn = Array.from({ length: centers }, () => Array.from({ length: dims }, gaussian));
  const unit = (v: number[]) => {
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  return () => unit(drawn[Math.floor(rnd() * drawn.length)]!.map((c) => c + spread * gaussian()));
}
