import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { gloveMagic } from './glove-convert.js';

export const gloveDimensions = 100;

/** Word tokens: letters and digits, with inner apostrophes and hyphens ("don't", "cross-country"). */
const wordPattern = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

export function gloveTokens(text: string): string[] {
  return text.toLowerCase().match(wordPattern) ?? [];
}

/** Whether `file` is a complete converted GloVe file (its header and size checked, its body not read). */
export function isGloveFile(file: string): boolean {
  if (!existsSync(file)) return false;
  const header = Buffer.alloc(16);
  const fd = openSync(file, 'r');
  try {
    if (readSync(fd, header, 0, 16, 0) < 16 || header.readUInt32LE(0) !== gloveMagic) return false;
  } finally {
    closeSync(fd);
  }
  const [count, dims, wordBytes] = [header.readUInt32LE(4), header.readUInt32LE(8), header.readUInt32LE(12)];
  return statSync(file).size === 16 + Math.ceil(wordBytes / 4) * 4 + count * dims * 4;
}

/**
 * Averaged GloVe word vectors with smooth inverse-frequency weights: a word of frequency rank r gets
 * a / (a + p(r)) with p(r) ≈ 1 / (r · H) (Zipf's law over the vocabulary, H its harmonic number), so "the"
 * weighs ~0.01 and rare words ~1. Text with no known word falls back to hashed character trigrams, so it still
 * gets a deterministic vector in which similar spellings are close.
 */
export class GloveModel {
  readonly #index: Map<string, number>;
  readonly #vectors: Float32Array;
  readonly #weights: Float32Array;
  readonly dims: number;

  private constructor(words: string[], vectors: Float32Array, dims: number) {
    this.dims = dims;
    this.#vectors = vectors;
    this.#index = new Map(words.map((w, i) => [w, i]));
    const harmonic = Math.log(words.length) + 0.5772;
    const a = 1e-3;
    this.#weights = Float32Array.from(words, (_w, rank) => a / (a + 1 / ((rank + 1) * harmonic)));
  }

  /** Loads the compact file written by `convertWinkJson`; undefined when it is missing or not a GloVe file. */
  static load(file: string): GloveModel | undefined {
    if (!existsSync(file)) return undefined;
    const buffer = readFileSync(file);
    if (buffer.length < 16 || buffer.readUInt32LE(0) !== gloveMagic) return undefined;
    const count = buffer.readUInt32LE(4);
    const dims = buffer.readUInt32LE(8);
    const wordBytes = buffer.readUInt32LE(12);
    const offset = 16 + Math.ceil(wordBytes / 4) * 4;
    if (buffer.length !== offset + count * dims * 4) return undefined;
    const words = buffer.toString('utf8', 16, 16 + wordBytes).split('\n');
    if (words.length !== count) return undefined;
    const vectors = new Float32Array(buffer.buffer, buffer.byteOffset + offset, count * dims);
    return new GloveModel(words, vectors, dims);
  }

  /** The embedding of a text (unit length) and the number of word tokens in it. */
  embed(text: string): { vector: Float32Array; tokenCount: number } {
    const tokens = gloveTokens(text);
    const vector = new Float32Array(this.dims);
    let known = 0;
    for (const token of tokens) {
      const i = this.#index.get(token);
      if (i === undefined) continue;
      known += 1;
      const w = this.#weights[i]!;
      for (let d = 0; d < this.dims; d += 1) vector[d]! += w * this.#vectors[i * this.dims + d]!;
    }
    if (known === 0) hashedTrigrams(text, vector);
    normalizeInPlace(vector);
    return { vector, tokenCount: tokens.length };
  }
}

/** Feature hashing of character trigrams into a signed vector (FNV-1a hash; sign from the high bit). */
function hashedTrigrams(text: string, into: Float32Array): void {
  const padded = ` ${text.toLowerCase().replace(/\s+/g, ' ').trim()} `;
  for (let i = 0; i + 3 <= padded.length; i += 1) {
    let hash = 0x811c9dc5;
    for (let j = i; j < i + 3; j += 1) {
      hash ^= padded.charCodeAt(j);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    into[hash % into.length]! += hash & 0x80000000 ? -1 : 1;
  }
}

export function normalizeInPlace(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const v of vector) norm += v * v;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let d = 0; d < vector.length; d += 1) vector[d]! /= norm;
  return vector;
}
