import type { SearchRows } from '../../access/search-rows.js';

/**
 * What a text index's state is read from (decision 0069): the document epoch (bumped by a trigger on every UPDATE
 * and DELETE of a document row — a delete, a visibility change, a new version) and the highest chunk seq ever
 * given (AUTOINCREMENT: every new chunk raises it). Equal tokens, equal text tables; an equal epoch and a higher
 * seq, the same tables with chunks added after it.
 */
export interface TextToken {
  readonly epoch: number;
  readonly chunks: number;
}

export const sameToken = (a: TextToken, b: TextToken): boolean => a.epoch === b.epoch && a.chunks === b.chunks;

/** The text token of a connection's state (read it inside the transaction whose state it describes). */
export const textToken = (rows: SearchRows): TextToken => ({ epoch: rows.epoch(), chunks: rows.chunkSequence() });
