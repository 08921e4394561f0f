import { existsSync, mkdirSync, rmSync } from 'node:fs';
import type { Index } from 'usearch';
import { join } from 'node:path';
import { writeDurably } from '../storage/durable-files.js';
import {
  fileCheck,
  matchingCheck,
  readMeta,
  removeTemporary,
  writeMeta,
  type FileCheck,
  type IndexMeta,
} from './index-files.js';
import type { Entry, IndexRegistry } from './index-registry.js';
import { publishView } from './search-views.js';
import { settle } from './tail-indexing.js';
import { readIndex } from './usearch-index.js';
import { defaultCheckpoint, shortTail } from './vector-index-options.js';

// An index's file: saved atomically (checkpoints, saves before a snapshot or on shutdown, evictions past the
// memory budget) and loaded back when it is current.

/**
 * Saves an index and its metadata, atomically: temporary file, fsync, rename, then the metadata likewise; then the
 * removal log up to the saved generation is pruned.
 */
export function save(registry: IndexRegistry, tenantId: string, space: string, entry: Entry): void {
  const files = registry.files(tenantId, space);
  if (!files) return;
  mkdirSync(join(files.index, '..'), { recursive: true });
  // The index first, then its metadata: a crash between the two leaves the older metadata beside the newer
  // index, and replaying from the older checkpoint onto it is harmless (removing a key twice changes nothing,
  // and a vector already in the index is not added again). So that older metadata accepts the newer file's check
  // too, written before the rename: the file beside it always passes the check at the next load.
  const previous = readMeta(files.meta);
  let check: FileCheck | undefined;
  writeDurably(files.index, (tmp) => {
    entry.index.save(tmp);
    // Read back while the page cache holds it (~0.3 s per GB): the next load checks the file against it.
    check = fileCheck(tmp);
    if (previous) writeMeta(files.meta, { ...previous, next: check });
  });
  // The generation the graph reflects: while the index is behind (a tail waiting), an older one, so the next
  // start catches the file up from the store instead of taking it as current.
  writeMeta(files.meta, {
    generation: entry.indexedGeneration,
    dims: entry.dims,
    count: entry.index.size(),
    through: entry.through,
    ...check,
  });
  registry.log.prune(tenantId, space, entry.indexedGeneration);
  publishView(registry, registry.key(tenantId, space), files.index, entry);
  entry.dirty = 0;
  entry.savedAt = registry.now();
  registry.checkpoints += 1;
}

/**
 * Saves every loaded index that changed since its file was written (on shutdown, before a snapshot). Short tails
 * are indexed first, shortest first, up to a few thousand vectors in all: those files are current, and the next
 * start loads them as they are. A longer tail (after a bulk import) is not drained here, which would hold the
 * thread — and every request — for as long as HNSW takes to insert it (minutes at a million): the file records
 * the graph as it is, with the generation and `through` it reflects and the removal log kept from there, so the
 * next load catches it up from the store. Every acknowledged write is in the store, so none is lost either way.
 */
export function saveAll(registry: IndexRegistry): void {
  if (!registry.options.dir) return; // nothing to save: memory-only indexes are rebuilt from the store on start
  const budget = { left: shortTail };
  const entries = [...registry.entries].sort(([, a], [, b]) => a.tail.size - b.tail.size);
  for (const [key, entry] of entries) {
    const [tenantId, space] = registry.spaceOf(key);
    settle(registry, tenantId, space, entry, budget);
    const files = registry.files(tenantId, space);
    if (entry.dirty > 0 || (files && !existsSync(files.meta))) save(registry, tenantId, space, entry);
  }
}

/**
 * Saves the indexes whose checkpoint is due: `checkpoint.writes` vectors changed since their last save, or any
 * change `checkpoint.intervalMs` after it. Returns the number saved.
 */
export function checkpoint(registry: IndexRegistry): number {
  if (!registry.options.dir || registry.closed) return 0;
  const { writes, intervalMs } = registry.options.checkpoint ?? defaultCheckpoint;
  const now = registry.now();
  const budget = { left: shortTail };
  let saved = 0;
  for (const [key, entry] of registry.entries) {
    // A short tail counts as changes (it is indexed and saved with the rest); a long one does not: the save would
    // not include it, and while the graph catches up a save is due every `writes` vectors it took, as before.
    const changed = entry.dirty + (entry.tail.size <= shortTail ? entry.tail.size : 0);
    if (changed === 0 || (changed < writes && now - entry.savedAt < intervalMs)) continue;
    const [tenantId, space] = registry.spaceOf(key);
    settle(registry, tenantId, space, entry, budget);
    if (entry.dirty === 0) continue; // the graph is as saved: nothing to write yet
    save(registry, tenantId, space, entry);
    saved += 1;
  }
  return saved;
}

/**
 * Saves and forgets the least recently used indexes while their memory passes the budget; `keep` (the index
 * being used) stays. Their next use loads them from their files, which are current.
 */
export function evict(registry: IndexRegistry, keep: string): void {
  const budget = registry.options.indexMemoryBytes ?? Infinity;
  if (!registry.options.dir || budget === Infinity) return;
  let total = registry.memory().indexBytes;
  while (total > budget) {
    let victim: [string, Entry] | undefined;
    for (const pair of registry.entries)
      if (pair[0] !== keep && (!victim || pair[1].used < victim[1].used)) victim = pair;
    if (!victim) return;
    const [key, entry] = victim;
    const [tenantId, space] = registry.spaceOf(key);
    const files = registry.files(tenantId, space)!;
    settle(registry, tenantId, space, entry);
    if (entry.dirty > 0 || !existsSync(files.meta)) save(registry, tenantId, space, entry);
    total -= registry.indexBytes(entry);
    registry.entries.delete(key);
    registry.evictions += 1;
  }
}

/**
 * The index in a space's file, checked against its metadata; undefined when there is none, it cannot be read now,
 * or it is unreadable (a file that differs from what was saved: counted in `unreadable`, removed with its metadata,
 * and the space is built from the store).
 */
export function readSpaceFile(
  registry: IndexRegistry,
  tenantId: string,
  space: string,
  meta: IndexMeta,
): Index | undefined {
  const files = registry.files(tenantId, space);
  if (!files) return undefined;
  removeTemporary(files.index);
  if (!existsSync(files.index)) return undefined;
  let matched: ReturnType<typeof matchingCheck>;
  try {
    matched = matchingCheck(files.index, meta);
  } catch {
    return undefined; // cannot be read now (EMFILE, EIO): kept, and the space is built from the store meanwhile
  }
  if (matched === null) {
    // Never tried again: the space is built from the store, and its next save writes both anew.
    rmSync(files.meta, { force: true });
    rmSync(files.index, { force: true });
    registry.unreadable += 1;
    return undefined;
  }
  const index = readIndex(files.index, () => registry.newIndex(tenantId, space, meta.dims));
  // The file a save renamed into place before a crash kept it from writing its metadata: the metadata names it
  // from now on (still at the older generation, so the writes since are replayed), and the next save's `next` is
  // added beside the file that is really there.
  if (index && typeof matched === 'object' && matched === meta.next) {
    const { next: _renamed, ...rest } = meta;
    writeMeta(files.meta, { ...rest, ...matched });
  }
  return index;
}

/**
 * The index from its file when the file is current — recorded at `generation`, the store's by default, and of
 * `dims` dimensions when given; undefined otherwise.
 */
export function loadFile(
  registry: IndexRegistry,
  tenantId: string,
  space: string,
  dims: number | undefined,
  generation = registry.store.generation(tenantId, space),
): Entry | undefined {
  const key = registry.key(tenantId, space);
  const cached = registry.entries.get(key);
  if (cached) return cached;
  if (registry.building.has(key)) return undefined;
  const files = registry.files(tenantId, space);
  if (!files) return undefined;
  const meta = readMeta(files.meta);
  if (!meta || meta.generation !== generation || (dims !== undefined && meta.dims !== dims)) return undefined;
  const index = readSpaceFile(registry, tenantId, space, meta);
  if (!index) return undefined;
  const entry = registry.entry(tenantId, space, {
    index,
    dims: meta.dims,
    generation,
    indexedGeneration: generation,
    exact: registry.newExact(meta.dims),
    exactReady: false,
    // A file saved before checkpoints recorded `through`: current, so it holds every vector stored so far.
    through: meta.through ?? registry.store.maxSeq(tenantId, space),
    dirty: meta.through === undefined ? 1 : 0,
    source: 'file',
  });
  registry.entries.set(key, entry);
  // The graph is the file as loaded: the search workers may map it (a file without `through` is saved again first).
  if (entry.dirty === 0) publishView(registry, key, files.index, entry);
  registry.opened.file += 1;
  registry.touch(entry);
  registry.fillCopies(tenantId, space, entry);
  evict(registry, key);
  return entry;
}
