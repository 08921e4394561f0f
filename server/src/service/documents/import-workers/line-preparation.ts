import { createError, DocumentInput, GoDBError } from '@godb/contract';
import { prepareDocument } from '../../../engine/documents/prepare.js';
import type { PreparedDocument } from '../../../engine/documents/types.js';
import { datesToUnixSeconds } from '../../dates.js';
import { validateJson } from '../../validation.js';

/** The longest line read: a document with an inline file may be large, but one line is never the whole body. */
export const maxLineBytes = 16 * 1024 * 1024;

/** One non-blank NDJSON line, numbered from 1; null text: a line longer than maxLineBytes, skipped. */
export interface Line {
  readonly number: number;
  readonly text: string | null;
}

export const fieldOf = (n: number) => `line[${n}]`;

/**
 * The part of a line's preparation that needs no database: JSON parse, validation against the contract, dates,
 * chunking and given vectors as float32. It runs on an import worker thread or, with IMPORT_THREADS=0, on the
 * server thread; either way DocumentPreparation.resolve finishes it. Throws the error naming the line's field.
 *
 * @example const doc = prepareLineAlone({ number: 3, text: '{"id":"a","title":"A"}' }, viewer.userId);
 */
export function prepareLineAlone(line: Line, ownerId: string): PreparedDocument {
  const field = fieldOf(line.number);
  if (line.text === null) throw createError('PAYLOAD_TOO_LARGE', { limit: maxLineBytes }, { field });
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch (error) {
    throw createError('INVALID_JSON_BODY', { reason: `line ${line.number}: ${(error as Error).message}` }, { field });
  }
  validateJson(DocumentInput, value, field);
  const input = datesToUnixSeconds(DocumentInput, value) as DocumentInput;
  return prepareDocument(input, ownerId, field);
}

/** A GoDB error as it crosses a thread (structured clone keeps no class). */
export interface ErrorShape {
  readonly code: GoDBError['code'];
  readonly message: string;
  readonly field?: string;
  readonly details?: Record<string, unknown>;
}

/** A line's error as it crosses a thread; null for an error that is not a GoDB error (answered INTERNAL). */
export function errorShapeOf(error: unknown): ErrorShape | null {
  if (!(error instanceof GoDBError)) return null;
  return {
    code: error.code,
    message: error.message,
    ...(error.field !== undefined && { field: error.field }),
    ...(error.details !== undefined && { details: { ...error.details } }),
  };
}

export const errorOfShape = (shape: ErrorShape | null): GoDBError =>
  shape
    ? new GoDBError(shape.code, shape.message, shape.field, shape.details)
    : createError('INTERNAL', { request_id: '' });
