import type { PreparedDocument } from '../../../engine/documents/types.js';
import type { ErrorShape, Line } from './line-preparation.js';

/** A slice of lines sent to an import worker, prepared for the document owner `ownerId`. */
export interface SliceRequest {
  readonly id: number;
  readonly ownerId: string;
  readonly lines: readonly Line[];
}

/**
 * Each line of the slice, in order: its prepared document with the analysed text of each chunk (the terms the text
 * index stores, see tokenize.ts), or its error.
 */
export interface SliceReply {
  readonly id: number;
  readonly results: readonly (
    { readonly doc: PreparedDocument; readonly terms: readonly string[] } | { readonly error: ErrorShape | null }
  )[];
}
