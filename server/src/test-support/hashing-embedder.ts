import { createHash } from 'node:crypto';

/**
 * A deterministic text embedding for integration tests: each word hashed into one of `dims` buckets, the counts made
 * unit length. Texts sharing words are near; the same text always gives the same vector; nothing is downloaded.
 *
 * @example hashEmbedding('cats purr') // 16 numbers, unit length
 */
export function hashEmbedding(text: string, dims = 16): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const bucket = createHash('sha256').update(word).digest().readUInt32BE(0) % dims;
    v[bucket] = (v[bucket] ?? 0) + 1;
  }
  // A text without words still has a direction (a zero vector has none).
  if (!v.some((x) => x !== 0)) v[0] = 1;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}
