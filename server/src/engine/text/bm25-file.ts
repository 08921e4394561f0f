import { constants as bufferConstants } from 'node:buffer';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Bm25PostingsState, Bm25State } from './bm25-index.js';

// A BM25 index's checkpoint file (see Bm25Checkpoints): the index's arrays as they are in memory, so reading it back
// costs a file read and a few maps, not the tokenizing of every chunk again (a build reads ~12,000 chunks/s here).
//
// Layout, little-endian, each section starting at a multiple of 8 bytes:
//   "GODBBM25", u32 header length, u32 0, the header (JSON, Bm25FileHeader)
//   the terms (UTF-8, separated by NUL), by term id
//   per term: postings length, df, public df (i32 each, one section each), max frequency, min length (f64 each)
//   postings, every term's in term id order: ids (i32), frequencies (f32), first positions (i32), occurrences (i32)
//   per chunk (local id): chunk seq, document seq (f64), length (i32), alive, public (u8), term start, term count,
//     title length (i32)
//   the term pool (i32)
//   "BM25DONE": a file cut short is never read as whole

const magic = Buffer.from('GODBBM25');
const endMark = Buffer.from('BM25DONE');
const stagingBytes = 8 * 1024 * 1024;

/** What a checkpoint file says of itself. */
export interface Bm25FileHeader {
  readonly format: 1;
  /** Names this save: the store's row for the tenant (text_checkpoints) must name it too for the file to be read. */
  readonly fileId: string;
  readonly tenantId: string;
  readonly terms: number;
  readonly postings: number;
  readonly chunks: number;
  readonly pool: number;
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
 * fsynced — in writes of a few megabytes, awaiting each, so the event loop keeps serving meanwhile. Answers the
 * file's size in bytes.
 */
export async function writeBm25File(
  path: string,
  state: Bm25State,
  ids: { readonly fileId: string; readonly tenantId: string },
): Promise<number> {
  const termBlob = Buffer.from(state.terms.join('\u0000'), 'utf8');
  const postings = state.postings.reduce((sum, p) => sum + p.length, 0);
  const header: Bm25FileHeader = {
    format: 1,
    fileId: ids.fileId,
    tenantId: ids.tenantId,
    terms: state.terms.length,
    postings,
    chunks: state.chunkSeqs.length,
    pool: state.termPool.length,
    termBytes: termBlob.length,
    dead: state.dead,
    live: state.live,
    publicLive: state.publicLive,
    publicLength: state.publicLength,
    through: state.through,
  };
  const tmp = `${path}.tmp-${ids.fileId}`;
  const file = await open(tmp, 'w');
  let written = 0;
  try {
    const staging = Buffer.allocUnsafe(stagingBytes);
    let used = 0;
    const flush = async () => {
      if (used === 0) return;
      await file.write(staging, 0, used);
      written += used;
      used = 0;
    };
    const put = async (view: ArrayBufferView) => {
      const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
      if (bytes.length > stagingBytes / 2) {
        await flush();
        await file.write(bytes);
        written += bytes.length;
        return;
      }
      if (used + bytes.length > stagingBytes) await flush();
      staging.set(bytes, used);
      used += bytes.length;
    };
    let section = 0;
    const pad = async () => {
      const n = padding(section);
      if (n > 0) await put(new Uint8Array(n));
      section = 0;
    };
    const putAll = async (views: readonly ArrayBufferView[]) => {
      for (const view of views) {
        await put(view);
        section += view.byteLength;
      }
      await pad();
    };
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    const lengthWords = new Uint32Array([json.length, 0]);
    await putAll([magic, lengthWords, json]);
    await putAll([termBlob]);
    const perTerm = <A extends Int32Array | Float64Array>(
      make: (n: number) => A,
      pick: (p: Bm25PostingsState) => number,
    ) => {
      const out = make(state.postings.length);
      state.postings.forEach((p, i) => (out[i] = pick(p)));
      return out;
    };
    await putAll([
      perTerm(
        (n) => new Int32Array(n),
        (p) => p.length,
      ),
    ]);
    await putAll([
      perTerm(
        (n) => new Int32Array(n),
        (p) => p.df,
      ),
    ]);
    await putAll([
      perTerm(
        (n) => new Int32Array(n),
        (p) => p.publicDf,
      ),
    ]);
    await putAll([
      perTerm(
        (n) => new Float64Array(n),
        (p) => p.maxFreq,
      ),
    ]);
    await putAll([
      perTerm(
        (n) => new Float64Array(n),
        (p) => p.minLength,
      ),
    ]);
    // Each term's first `length` entries, viewed one term at a time as the write reaches it.
    const column = async (pick: (p: Bm25PostingsState) => Int32Array | Float32Array) => {
      for (const p of state.postings) {
        const array = pick(p);
        await put(new Uint8Array(array.buffer, array.byteOffset, p.length * 4));
        section += p.length * 4;
      }
      await pad();
    };
    await column((p) => p.ids);
    await column((p) => p.freqs);
    await column((p) => p.firstAt);
    await column((p) => p.occurrences);
    for (const view of [
      state.chunkSeqs,
      state.docSeqs,
      state.lengths,
      state.alive,
      state.isPublic,
      state.termStart,
      state.termCount,
      state.titleLengths,
      state.termPool,
    ])
      await putAll([view]);
    await putAll([endMark]);
    await flush();
    await file.sync();
  } catch (error) {
    await file.close();
    await rm(tmp, { force: true });
    throw error;
  }
  await file.close();
  await rename(tmp, path);
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
  return written;
}

/**
 * A checkpoint file read back: its header and the state it holds (views of the file's bytes, which the restored
 * index then owns), or undefined when the file is missing, cut short, of another format or too large to read at
 * once (the caller builds the index from the store instead).
 */
export async function readBm25File(path: string): Promise<{ header: Bm25FileHeader; state: Bm25State } | undefined> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return undefined;
  }
  if (size > bufferConstants.MAX_LENGTH || size < 24) return undefined;
  let bytes = await readFile(path);
  if (bytes.byteOffset % 8 !== 0) bytes = Buffer.from(bytes); // typed views need aligned offsets
  if (!bytes.subarray(0, 8).equals(magic) || !bytes.subarray(bytes.length - 8).equals(endMark)) return undefined;
  const buffer = bytes.buffer as ArrayBuffer;
  let at = bytes.byteOffset + 8;
  const base = bytes.byteOffset;
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
    if (header.format !== 1) return undefined;
    const { terms: t, chunks: c } = header;
    const blob = take((o, n) => Buffer.from(buffer, o, n), header.termBytes, 1);
    const terms = t === 0 ? [] : blob.toString('utf8').split('\u0000');
    if (terms.length !== t) return undefined;
    const i32 = (n: number) => take((o, k) => new Int32Array(buffer, o, k), n, 4);
    const f64 = (n: number) => take((o, k) => new Float64Array(buffer, o, k), n, 8);
    const u8 = (n: number) => take((o, k) => new Uint8Array(buffer, o, k), n, 1);
    const lengths = i32(t);
    const df = i32(t);
    const publicDf = i32(t);
    const maxFreq = f64(t);
    const minLength = f64(t);
    const starts = new Float64Array(t + 1);
    for (let i = 0; i < t; i += 1) starts[i + 1] = starts[i]! + lengths[i]!;
    if (starts[t] !== header.postings) return undefined;
    const section = <A>(make: (offset: number, n: number) => A, width: number) => {
      const from = at;
      const views = Array.from({ length: t }, (_, i) => make(from + starts[i]! * width, lengths[i]!));
      at = from + header.postings * width;
      at += padding(at - base);
      return views;
    };
    const ids = section((o, n) => new Int32Array(buffer, o, n), 4);
    const freqs = section((o, n) => new Float32Array(buffer, o, n), 4);
    const firstAt = section((o, n) => new Int32Array(buffer, o, n), 4);
    const occurrences = section((o, n) => new Int32Array(buffer, o, n), 4);
    const state: Bm25State = {
      terms,
      postings: terms.map((_, i) => ({
        length: lengths[i]!,
        ids: ids[i]!,
        freqs: freqs[i]!,
        firstAt: firstAt[i]!,
        occurrences: occurrences[i]!,
        df: df[i]!,
        publicDf: publicDf[i]!,
        maxFreq: maxFreq[i]!,
        minLength: minLength[i]!,
      })),
      chunkSeqs: f64(c),
      docSeqs: f64(c),
      lengths: i32(c),
      alive: u8(c),
      isPublic: u8(c),
      termStart: i32(c),
      termCount: i32(c),
      titleLengths: i32(c),
      termPool: i32(header.pool),
      dead: header.dead,
      live: header.live,
      publicLive: header.publicLive,
      publicLength: header.publicLength,
      through: header.through,
    };
    if (at - base !== bytes.length - 8) return undefined;
    return { header, state };
  } catch {
    return undefined; // a section out of bounds: not a file this code wrote whole
  }
}
