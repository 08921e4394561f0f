import { constants as bufferConstants } from 'node:buffer';
import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { nextTurn } from '../next-turn.js';
import { writeFileDurably } from '../storage/durable-files.js';
import { analysisVersion } from './tokenize.js';
import {
  chunkRoom,
  poolRoom,
  postingsRoom,
  type Bm25Saved,
  type Bm25State,
  type PostingsColumn,
} from './bm25-state.js';

// A BM25 index's checkpoint file (see Bm25Checkpoints): the index's arrays as they are in memory, so reading it back
// costs a file read and a few maps, not the tokenizing of every chunk again (a build reads ~12,000 chunks/s here).
//
// Layout, little-endian, each section starting at a multiple of 8 bytes:
//   "GODBBM25", u32 header length, u32 0, the header (JSON, Bm25FileHeader)
//   the terms (UTF-8, separated by NUL), by term id
//   per term: postings length, df, public df (i32 each, one section each), max frequency, min length (f64 each)
//   postings, every term's in term id order, each followed by zeros up to its room (postingsRoom): ids (i32),
//     frequencies (f32), first positions (i32), occurrences (i32)
//   per chunk (local id), then zeros up to `chunkRoom`: chunk seq, document seq (f64), length (i32), alive, public
//     (u8), term start, term count, title length (i32)
//   the term pool (i32), then zeros up to `poolRoom`
// The room is what lets the index read back use the file's bytes as its arrays, and still take writes in place.
//   "BM25DONE": a file cut short is never read as whole
//   the CRC-32 of every byte before it (u32), then u32 0: a file whose bytes changed on disk is never read either

const magic = Buffer.from('GODBBM25');
const endMark = Buffer.from('BM25DONE');
/** The end mark and the checksum after it. */
const trailerBytes = 16;
const stagingBytes = 8 * 1024 * 1024;
/** Terms measured or written between two turns of the event loop. */
const termsPerTurn = 50_000;
/** Bytes read per call when a file is read back. */
const readBytes = 64 * 1024 * 1024;

/** What a checkpoint file says of itself. */
export interface Bm25FileHeader {
  /** 2 since files end with a checksum (files of format 1 are not read: the index is built once from the store). */
  readonly format: 2;
  /** Names this save: the store's row for the tenant (text_checkpoints) must name it too for the file to be read. */
  readonly fileId: string;
  readonly tenantId: string;
  /** What the terms and frequencies were made with: a file of other ones is not read back (see analysisVersion). */
  readonly analysis: number;
  readonly weights: { readonly title: number; readonly content: number };
  readonly terms: number;
  /** Postings entries, and the room their columns have (every term's postingsRoom). */
  readonly postings: number;
  readonly postingsRoom: number;
  readonly chunks: number;
  readonly chunkRoom: number;
  readonly pool: number;
  readonly poolRoom: number;
  readonly termBytes: number;
  readonly dead: number;
  readonly live: number;
  readonly publicLive: number;
  readonly publicLength: number;
  readonly through: number;
}

const padding = (bytes: number) => (8 - (bytes % 8)) % 8;

/**
 * Writes a captured state (Bm25Index.capture) to `path` durably — a temporary file, fsynced, renamed, then its folder
 * fsynced — through an 8 MB buffer written when full, awaiting each write, so the event loop keeps serving meanwhile;
 * the checksum is taken of each buffer as it is written. Answers the file's size in bytes.
 */
export async function writeBm25File(
  path: string,
  state: Bm25State,
  ids: { readonly fileId: string; readonly tenantId: string },
): Promise<number> {
  const { lengths } = state.stats;
  const terms = lengths.length;
  // The terms are measured and written a slice at a time: joined at once, a million of them held the thread ~110 ms.
  const names = state.terms(terms);
  let termBytes = Math.max(0, names.length - 1); // the NUL between each two
  for (let t = 0; t < names.length; t += 1) {
    termBytes += Buffer.byteLength(names[t]!, 'utf8');
    if (t % termsPerTurn === termsPerTurn - 1) await nextTurn();
  }
  let postings = 0;
  let room = 0;
  for (let t = 0; t < terms; t += 1) {
    postings += lengths[t]!;
    room += postingsRoom(lengths[t]!);
  }
  const chunks = state.chunkSeqs.length;
  const pool = state.termPool.length;
  const header: Bm25FileHeader = {
    format: 2,
    fileId: ids.fileId,
    tenantId: ids.tenantId,
    analysis: analysisVersion,
    weights: state.weights,
    terms,
    postings,
    postingsRoom: room,
    chunks,
    chunkRoom: chunkRoom(chunks),
    pool,
    poolRoom: poolRoom(pool),
    termBytes,
    dead: state.dead,
    live: state.live,
    publicLive: state.publicLive,
    publicLength: state.publicLength,
    through: state.through,
  };
  let written = 0;
  await writeFileDurably(path, `${path}.tmp-${ids.fileId}`, async (file) => {
    // Filled to the end before each write, so the buffer always starts at a multiple of its size in the file and a
    // 4-byte value at an aligned file offset is aligned in it too.
    const staging = Buffer.allocUnsafeSlow(stagingBytes);
    const stagingInts = new Int32Array(staging.buffer, staging.byteOffset, stagingBytes / 4);
    const stagingFloats = new Float32Array(staging.buffer, staging.byteOffset, stagingBytes / 4);
    let used = 0;
    let checksum = 0;
    const flush = async () => {
      if (used === 0) return;
      checksum = crc32(staging.subarray(0, used), checksum);
      await file.write(staging, 0, used);
      written += used;
      used = 0;
    };
    const put = async (view: ArrayBufferView) => {
      const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
      for (let at = 0; at < bytes.length;) {
        const n = Math.min(bytes.length - at, stagingBytes - used);
        staging.set(bytes.subarray(at, at + n), used);
        used += n;
        at += n;
        if (used === stagingBytes) await flush();
      }
    };
    let section = 0;
    const pad = async () => {
      const n = padding(section);
      if (n > 0) await put(new Uint8Array(n));
      section = 0;
    };
    /** `n` zero bytes: the room after an array's entries. */
    const zeros = async (n: number) => {
      for (let left = n; left > 0;) {
        const k = Math.min(left, stagingBytes - used);
        staging.fill(0, used, used + k);
        used += k;
        left -= k;
        if (used === stagingBytes) await flush();
      }
      section += n;
    };
    /** An array's entries, then zeros up to `room` entries, as one section. */
    const putRoomy = async (view: Float64Array | Int32Array | Uint8Array, room: number) => {
      await put(view);
      section += view.byteLength;
      await zeros((room - view.length) * view.BYTES_PER_ELEMENT);
      await pad();
    };
    const putAll = async (views: readonly ArrayBufferView[]) => {
      for (const view of views) {
        await put(view);
        section += view.byteLength;
      }
      await pad();
    };
    /**
     * One postings column: each term's entries from its array, copied one by one for short lists (most terms: a
     * view per term would cost more than the copy) and as a block for long ones.
     */
    const column = async (which: PostingsColumn, into: Int32Array | Float32Array) => {
      for (let t = 0; t < terms; t += 1) {
        let left = lengths[t]!;
        if (left === 0) continue;
        const array = state.postingsArray(t, which);
        let from = state.postingsOffset(t);
        while (left > 0) {
          const n = Math.min(left, (stagingBytes - used) / 4);
          const at = used / 4;
          if (n <= 32) for (let i = 0; i < n; i += 1) into[at + i] = array[from + i]!;
          else into.set(array.subarray(from, from + n), at);
          used += n * 4;
          section += n * 4;
          from += n;
          left -= n;
          if (used === stagingBytes) await flush();
        }
        await zeros((postingsRoom(lengths[t]!) - lengths[t]!) * 4);
      }
      await pad();
    };
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    await putAll([magic, new Uint32Array([json.length, 0]), json]);
    // The terms, separated by NUL: encoded straight into the buffer, or through one of their own at its end.
    // (The buffer is never full here: it is written as soon as it is.)
    for (let t = 0; t < names.length; t += 1) {
      const name = names[t]!;
      const nul = t > 0 ? 1 : 0;
      if (stagingBytes - used >= nul + name.length * 3) {
        if (nul) staging[used] = 0;
        const n = nul + staging.write(name, used + nul, 'utf8');
        used += n;
        section += n;
        if (used === stagingBytes) await flush();
      } else {
        const bytes = Buffer.from(nul ? `\u0000${name}` : name, 'utf8');
        await put(bytes);
        section += bytes.length;
      }
      if (t % termsPerTurn === termsPerTurn - 1) await nextTurn();
    }
    await pad();
    for (const view of [
      state.stats.lengths,
      state.stats.df,
      state.stats.publicDf,
      state.stats.maxFreq,
      state.stats.minLength,
    ])
      await putAll([view]);
    await column(0, stagingInts);
    await column(1, stagingFloats);
    await column(2, stagingInts);
    await column(3, stagingInts);
    const room = chunkRoom(chunks);
    for (const view of [
      state.chunkSeqs,
      state.docSeqs,
      state.lengths,
      state.alive,
      state.isPublic,
      state.termStart,
      state.termCount,
      state.titleLengths,
    ])
      await putRoomy(view, room);
    await putRoomy(state.termPool, poolRoom(pool));
    await putAll([endMark]);
    await flush();
    const trailer = Buffer.alloc(8); // the checksum, then 0, little-endian as the reader reads them
    trailer.writeUInt32LE(checksum, 0);
    await file.write(trailer);
    written += 8;
  });
  return written;
}

/**
 * A file's bytes, read in large calls into one buffer of its own (aligned for typed views), when the CRC-32 of its
 * bytes before the last 8 (taken of each call's bytes as they come) is the one those 8 start with.
 */
async function readChecked(path: string): Promise<Buffer | undefined> {
  let file;
  try {
    file = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = (await file.stat()).size;
    if (size > bufferConstants.MAX_LENGTH || size < 8 + trailerBytes) return undefined;
    const bytes = Buffer.allocUnsafeSlow(size);
    const summed = size - 8;
    let checksum = 0;
    for (let at = 0; at < size;) {
      const { bytesRead } = await file.read(bytes, at, Math.min(readBytes, size - at), at);
      if (bytesRead === 0) return undefined;
      if (at < summed) checksum = crc32(bytes.subarray(at, Math.min(at + bytesRead, summed)), checksum);
      at += bytesRead;
    }
    return bytes.readUInt32LE(summed) === checksum && bytes.readUInt32LE(summed + 4) === 0 ? bytes : undefined;
  } finally {
    await file.close();
  }
}

/**
 * A checkpoint file read back: its header and the state it holds (views of the file's bytes, which the restored
 * index then owns), or undefined when the file is missing, cut short, changed since it was written (its checksum),
 * of another format or larger than a buffer can be (the caller builds the index from the store instead).
 */
export async function readBm25File(path: string): Promise<{ header: Bm25FileHeader; state: Bm25Saved } | undefined> {
  const bytes = await readChecked(path);
  if (!bytes) return undefined;
  const ends = bytes.length - trailerBytes;
  if (!bytes.subarray(0, 8).equals(magic) || !bytes.subarray(ends, ends + 8).equals(endMark)) return undefined;
  const buffer = bytes.buffer as ArrayBuffer;
  const base = bytes.byteOffset;
  let at = base + 8;
  const take = <A>(make: (offset: number, n: number) => A, n: number, width: number): A => {
    const view = make(at, n);
    at += n * width;
    at += padding(at - base);
    return view;
  };
  try {
    const jsonLength = new Uint32Array(buffer, at, 1)[0]!;
    at += 8;
    const header = JSON.parse(Buffer.from(buffer, at, jsonLength).toString('utf8')) as Bm25FileHeader;
    at += jsonLength;
    at += padding(at - base);
    if (header.format !== 2 || header.analysis !== analysisVersion) return undefined;
    const { terms: t, chunkRoom: c, postingsRoom: p } = header;
    const blob = take((o, n) => Buffer.from(buffer, o, n), header.termBytes, 1);
    const terms = t === 0 ? [] : blob.toString('utf8').split('\u0000');
    if (terms.length !== t) return undefined;
    const i32 = (n: number) => take((o, k) => new Int32Array(buffer, o, k), n, 4);
    const f32 = (n: number) => take((o, k) => new Float32Array(buffer, o, k), n, 4);
    const f64 = (n: number) => take((o, k) => new Float64Array(buffer, o, k), n, 8);
    const u8 = (n: number) => take((o, k) => new Uint8Array(buffer, o, k), n, 1);
    const stats = { lengths: i32(t), df: i32(t), publicDf: i32(t), maxFreq: f64(t), minLength: f64(t) };
    let total = 0;
    let room = 0;
    for (let i = 0; i < t; i += 1) {
      total += stats.lengths[i]!;
      room += postingsRoom(stats.lengths[i]!);
    }
    if (total !== header.postings || room !== p) return undefined;
    if (c !== chunkRoom(header.chunks) || header.poolRoom !== poolRoom(header.pool)) return undefined;
    const state: Bm25Saved = {
      terms,
      stats,
      postings: { ids: i32(p), freqs: f32(p), firstAt: i32(p), occurrences: i32(p) },
      chunkSeqs: f64(c),
      docSeqs: f64(c),
      lengths: i32(c),
      alive: u8(c),
      isPublic: u8(c),
      termStart: i32(c),
      termCount: i32(c),
      titleLengths: i32(c),
      termPool: i32(header.poolRoom),
      count: header.chunks,
      poolLength: header.pool,
      dead: header.dead,
      live: header.live,
      publicLive: header.publicLive,
      publicLength: header.publicLength,
      through: header.through,
    };
    if (at - base !== ends) return undefined;
    return { header, state };
  } catch {
    return undefined; // a section out of bounds: not a file this code wrote whole
  }
}
