import { join } from 'node:path';
import { unixSeconds, type Clock } from '../clock.js';
import type { VectorIndexes } from '../vectors/vector-index.js';
import type { DocumentFiles } from '../files/document-files.js';
import { FileDeletions } from '../files/file-deletions.js';
import type { Db } from '../storage/database.js';
import { transaction } from '../storage/transaction.js';
import type { TextIndex } from '../text/text-index.js';
import {
  attachSnapshot,
  clashesSince,
  clashReader,
  deleteDocumentIndexRows,
  deleteMarker,
  deleteTenantRows,
  detachSnapshot,
  dropGenerations,
  ensureTenant,
  fileKeyReader,
  highestSeq,
  indexGeoRange,
  reserveSeqs,
  seqBounds,
  seqsOccupied,
  seqTables,
  snapshotRowCount,
  tableBounds,
  tenantOwnTables,
  tenantRowCount,
  type SeqTable,
} from './restore-rows.js';
import type { RestoreFences } from './restore-fences.js';
import { adoptIndexFiles, dropIndexFiles } from './restored-index-files.js';
import { stagedDatabase } from './snapshot-staging.js';
import { nextTurn, SliceSizer, walkRanges, type Bounds } from './slices.js';
import { copyTenantRange, tenantRowidBounds, tenantTables } from './tenant-rows.js';

/** What a restore did. */
export interface RestoreReport {
  readonly tenants: readonly string[];
  readonly documents: number;
  /**
   * Whether sequence numbers were kept (so the snapshot's index files were used as they are); false when another
   * tenant of this node already used some of them, and the rows were renumbered and the indexes will be rebuilt.
   */
  readonly seqsPreserved: boolean;
}

/** The stores and settings a tenant's rows are replaced with. */
export interface TenantReplacementOptions {
  readonly db: Db;
  readonly text: TextIndex;
  readonly vectors: VectorIndexes;
  readonly files: DocumentFiles | null;
  readonly dataDir: string;
  readonly clock: Clock;
  /**
   * At most this many rows (or seqs of a range) deleted, copied or indexed per transaction of a tenant restore; each
   * is sized to ~40 ms of work below this (SliceSizer, timed with `clock`), so other requests run between.
   */
  readonly sliceRows: number;
}

/** One tenant's restore: from which snapshot, unpacked where, and whether its index files may be loaded. */
export interface TenantRestore {
  readonly tenant: string;
  readonly snapshotId: string;
  /** The unpacked snapshot's folder. */
  readonly dir: string;
  readonly trustIndexFiles: boolean;
}

/**
 * Replaces a fenced tenant's rows with the snapshot's in slices, then its index files, then lifts the fence.
 * Run again from the start after a crash, it ends the same: every slice first deletes what the tenant holds.
 * `progress(rows, total)` counts rows deleted, copied and indexed.
 *
 * @example const report = await replaceTenant(options, fences, { tenant, snapshotId, dir, trustIndexFiles }, () => {});
 */
export async function replaceTenant(
  options: TenantReplacementOptions,
  fences: RestoreFences,
  restore: TenantRestore,
  progress: (rows: number, total: number) => void,
): Promise<RestoreReport> {
  const { db, text, vectors, files, dataDir, clock, sliceRows: maxRows } = options;
  const { tenant } = restore;
  fences.fence(tenant, restore.snapshotId);
  fences.startReplacing(tenant, restore.snapshotId);
  vectors.forgetTenant(tenant);
  dropIndexFiles(dataDir, tenant);
  attachSnapshot(db, stagedDatabase(restore.dir) ?? join(restore.dir, 'tenant.sqlite'));
  try {
    // Every step below that reads or writes many rows runs in short slices sized by time (SliceSizer: ~40 ms of
    // work, at most `sliceRows` rows or seqs), with other requests served between: the copy, text, geo, file-key
    // and clash slices walk rowid or seq ranges, so no slice scans the tenant's rows to find where it starts.
    const sizer = () => new SliceSizer(clock, maxRows);
    const turn = () => nextTurn();
    // Where the snapshot's rows lie: a tenant snapshot's database holds only that tenant's rows, so the ends of each
    // table (two key lookups); a whole-node one's, the ends of the tenant's rows, read on its index.
    const ownFile = stagedDatabase(restore.dir)?.endsWith('tenant.sqlite') === true;
    const snapshotBounds = (table: SeqTable): Bounds =>
      ownFile ? tableBounds(db, 's', table) : seqBounds(db, 's', table, tenant);

    // Files: those the tenant's rows name now and the snapshot's do not are owed for deletion before any row goes
    // (an attempt that resumes after a failure owes those of the rows still left: the others were owed already);
    // those the snapshot's rows name are not owed (a purge after the snapshot owed them).
    const snapshotKeys = await fileKeysOf(db, 's', tenant, snapshotBounds('documents'), sizer());
    const currentKeys = await fileKeysOf(db, 'main', tenant, seqBounds(db, 'main', 'documents', tenant), sizer());
    db.transaction(() => {
      files?.owe([...currentKeys].filter((key) => !snapshotKeys.has(key)));
      new FileDeletions(db).forget(snapshotKeys);
    })();
    const old = tenantRowCount(db, 'main', tenant);
    const incoming = ownFile
      ? tenantTables.reduce((sum, { table }) => sum + snapshotRowCount(db, table), 0)
      : tenantRowCount(db, 's', tenant);
    const total = old + incoming * 2;
    let done = 0;
    const step = async (rows: number) => {
      done += rows;
      progress(Math.min(done, total), total);
      await nextTurn();
    };

    // Out with the old (nothing to do for a tenant with no rows: a restore into an empty tenant, or a new node):
    // the rows keyed by document first, then the tenant's own tables.
    if (old > 0) {
      await walkRanges(
        seqBounds(db, 'main', 'documents', tenant),
        sizer(),
        (after, through) => {
          db.transaction(() => deleteDocumentIndexRows(db, tenant, after, through))();
          return 0;
        },
        turn,
      );
      for (const table of tenantOwnTables) {
        const deleting = sizer();
        for (;;) {
          const changes = deleting.measure((size) => deleteTenantRows(db, table, tenant, size));
          if (changes === 0) break;
          await step(changes);
        }
      }
    }
    ensureTenant(db, tenant, unixSeconds(clock));
    transaction(db, [text], () => text.recreate(tenant));

    // In with the snapshot's: seqs kept unless another tenant holds one of them, else moved past the highest; either
    // way their range is reserved first, so that other tenants' rows written meanwhile never take one of them.
    const marks = new Map(seqTables.map((table) => [table, highestSeq(db, table)]));
    let preserved = true;
    for (const table of seqTables)
      if (preserved && (await clashes(db, table, tenant, snapshotBounds(table), sizer()))) preserved = false;
    const offsets = { doc: 0, chunk: 0, vector: 0 };
    db.transaction(() => {
      // Rows other tenants wrote while the checks yielded took seqs above the marks: one may be one of the snapshot's.
      if (preserved && seqTables.some((table) => clashesSince(db, table, tenant, marks.get(table)!))) preserved = false;
      offsets.doc = reserveSeqs(db, 'documents', snapshotBounds('documents'), preserved);
      offsets.chunk = reserveSeqs(db, 'chunks', snapshotBounds('chunks'), preserved);
      offsets.vector = reserveSeqs(db, 'document_vectors', snapshotBounds('document_vectors'), preserved);
    })();
    const shifted: Record<string, Record<string, number>> = {
      documents: { seq: offsets.doc },
      chunks: { seq: offsets.chunk, doc_seq: offsets.doc },
      document_access: { doc_seq: offsets.doc },
      document_vectors: { seq: offsets.vector, doc_seq: offsets.doc },
    };
    const copying = sizer();
    for (const table of tenantTables) {
      const skip = table.table === 'engagement_events' ? ['id'] : [];
      await walkRanges(
        tenantRowidBounds(db, tenant, table, ownFile),
        copying,
        (after, through) =>
          db.transaction(() =>
            copyTenantRange(db, tenant, table, after, through, { shift: shifted[table.table], skip }),
          )(),
        step,
      );
    }
    if (!preserved) dropGenerations(db, tenant);

    // The derived indexes, from the restored rows: the text by chunk seq range (three INSERT … SELECTs a slice),
    // the geo by document seq range; the live documents counted on the way.
    await walkRanges(
      shift(snapshotBounds('chunks'), offsets.chunk),
      sizer(),
      (after, through) => transaction(db, [text], () => text.reindexRange(tenant, after, through)),
      (indexed) => step(indexed / 2),
    );
    const documents = await walkRanges(
      shift(snapshotBounds('documents'), offsets.doc),
      sizer(),
      (after, through) => indexGeoRange(db, tenant, after, through),
      turn,
    );

    // The index files, then the end of the restore: the fence lifts with the marker's deletion.
    if (preserved && restore.trustIndexFiles) adoptIndexFiles(restore.dir, dataDir, tenant);
    deleteMarker(db, tenant);
    fences.endReplacing(tenant);
    vectors.forgetTenant(tenant);
    text.forgetInMemory(tenant);
    fences.lift(tenant);
    void files?.deleteOwed();
    return { tenants: [tenant], documents, seqsPreserved: preserved };
  } finally {
    detachSnapshot(db);
  }
}

/**
 * The stored files the tenant's documents in `schema` name (`main`, or the attached snapshot `s`), read by seq range
 * in slices (every document's fields are read: at a million, seconds of work).
 */
async function fileKeysOf(
  db: Db,
  schema: 'main' | 's',
  tenant: string,
  bounds: Bounds,
  sizer: SliceSizer,
): Promise<Set<string>> {
  const keys = new Set<string>();
  const read = fileKeyReader(db, schema, tenant);
  await walkRanges(
    bounds,
    sizer,
    (after, through) => {
      for (const key of read(after, through)) keys.add(key);
      return 0;
    },
    nextTurn,
  );
  return keys;
}

/**
 * Whether a snapshot row of the tenant (attached as `s`) has a seq that a row of this node already holds: at once when
 * the node has no row in the snapshot's seq range (a tenant restored on its own node, after its rows were deleted),
 * else by seq range in slices.
 */
async function clashes(db: Db, table: SeqTable, tenant: string, bounds: Bounds, sizer: SliceSizer): Promise<boolean> {
  if (!seqsOccupied(db, table, bounds)) return false;
  const check = clashReader(db, table, tenant);
  let found = false;
  await walkRanges(
    bounds,
    sizer,
    (after, through) => {
      found = check(after, through);
      return found ? null : 0;
    },
    nextTurn,
  );
  return found;
}

/** `bounds` moved by `offset` (renumbered seqs). */
const shift = (bounds: Bounds, offset: number): Bounds => ({ low: bounds.low + offset, high: bounds.high + offset });
