import { LRUCache } from 'lru-cache';
import type { SearchRows } from '../access/search-rows.js';

/** Rows remembered at most; the oldest are forgotten first. */
const maxRows = 50_000;

/**
 * The search rows of public, live documents that earlier searches read, with their tenant and table. A public
 * document is readable by its whole tenant, so a search that finds one here needs neither the store nor the
 * access rule. (Private and shared documents always go through the rule: ACL entries expire with time.)
 *
 * Remembered rows are valid while the store's document epoch is unchanged: a trigger bumps it on every UPDATE
 * and DELETE of a document row (a new version supersedes the old row, a delete marks or removes it, a visibility
 * or engagement change updates it), whatever code path writes. Each use reads the epoch first (one small query)
 * and forgets everything when it moved. New rows need no bump: they were never remembered. Nothing is remembered
 * inside a write transaction, whose rows may still roll back.
 */
export class PublicRows<Row extends readonly unknown[]> {
  readonly #store: SearchRows;
  /** By document seq; read with peek, so the oldest remembered is forgotten first when full. */
  readonly #rows: LRUCache<
    number,
    { readonly tenant: string; readonly table: string; readonly row: Row; readonly bytes: number }
  >;
  #epoch = -1;
  #bytes = 0;

  constructor(store: SearchRows) {
    this.#store = store;
    this.#rows = new LRUCache({
      max: maxRows,
      dispose: (entry) => {
        this.#bytes -= entry.bytes;
      },
    });
  }

  /** Brings the memory in step with the store; false inside a write transaction (then it must not be used). */
  sync(): boolean {
    if (this.#store.inTransaction) return false;
    const epoch = this.#store.epoch();
    if (epoch !== this.#epoch) {
      this.#rows.clear();
      this.#epoch = epoch;
    }
    return true;
  }

  /** The row of a public, live document of that tenant (and table, when given), if remembered. */
  get(seq: number, tenant: string, table: string | undefined): Row | undefined {
    const entry = this.#rows.peek(seq);
    if (!entry || entry.tenant !== tenant || (table !== undefined && entry.table !== table)) return undefined;
    return entry.row;
  }

  /** Remembers a row the access rule just let through, if its document is public. Call after sync() is true. */
  remember(seq: number, tenant: string, table: string, visibility: string, row: Row): void {
    if (visibility !== 'public' || this.#rows.has(seq)) return;
    const bytes = estimateBytes(row) + 2 * (tenant.length + table.length) + 96;
    this.#bytes += bytes;
    this.#rows.set(seq, { tenant, table, row, bytes });
  }

  /** Memory held, estimated (strings at 2 bytes a character, numbers 8, ~96 bytes per entry), and rows held. */
  memory(): { bytes: number; rows: number; maxRows: number } {
    return { bytes: this.#bytes, rows: this.#rows.size, maxRows };
  }
}

function estimateBytes(row: readonly unknown[]): number {
  let bytes = 16 + 8 * row.length;
  for (const value of row) {
    if (typeof value === 'string') bytes += 2 * value.length;
    else if (value instanceof Uint8Array) bytes += value.byteLength;
    else if (typeof value === 'number') bytes += 8;
  }
  return bytes;
}
