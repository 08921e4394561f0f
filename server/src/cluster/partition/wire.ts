import { createError, isGoDBError, type ErrorCode } from '@godb/contract';
import type { Outcome } from '../../engine/operations/operation-applier.js';

/** A catalogue error as it travels between nodes: its code, message, field and details. */
interface WireError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly field?: string;
  readonly details?: Record<string, unknown>;
}

/** What one node answers another over NATS request/reply: a value, or the catalogue error it answered. */
type Wire = { readonly value: unknown } | { readonly error: WireError };

/**
 * An outcome (or a thrown error) as bytes for a reply. An error outside the catalogue travels as INTERNAL: its
 * message stays in the answering node's log, as at the edge of the API.
 *
 * @example encodeReply({ value: [{ id: 'a', version: 1 }] });
 */
export function encodeReply(outcome: Outcome): Uint8Array {
  const wire: Wire =
    'value' in outcome
      ? { value: outcome.value }
      : isGoDBError(outcome.error)
        ? {
            error: {
              code: outcome.error.code,
              message: outcome.error.message,
              ...(outcome.error.field !== undefined && { field: outcome.error.field }),
              ...(outcome.error.details !== undefined && { details: { ...outcome.error.details } }),
            },
          }
        : { error: { code: 'INTERNAL', message: 'another node failed to answer' } };
  return Buffer.from(JSON.stringify(wire));
}

/** The outcome a reply carries: its value, or the catalogue error, made again here with the same message. */
export function decodeReply(bytes: Uint8Array): Outcome {
  const wire = JSON.parse(Buffer.from(bytes).toString('utf8')) as Wire;
  if ('value' in wire) return { value: wire.value };
  const { code, message, field, details } = wire.error;
  const error = createError(code, {}, { ...(field !== undefined && { field }), ...(details && { details }) });
  error.message = message;
  return { error };
}

/** JSON as bytes, for a request. */
export const encodeJson = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value));

/** Bytes of a request as JSON. */
export const decodeJson = <T>(bytes: Uint8Array): T => JSON.parse(Buffer.from(bytes).toString('utf8')) as T;

/**
 * A holder's answer to an outcome asked of a shard it no longer holds (the asking node's record is older): the
 * asking node asks the shard's next holder rather than take it as the write's outcome.
 */
export const notHeldHere = (subject: string, nodeId: string): Outcome => ({
  error: createError(
    'CLUSTER_LAGGING',
    { applied: 0, wanted: 0, timeout_ms: 0, detail: `Node ${nodeId} no longer holds ${subject}.` },
    { details: { not_held: subject } },
  ),
});

/** Whether an outcome's error is notHeldHere's. */
export const isNotHeld = (error: unknown): boolean =>
  isGoDBError(error) && (error.details as { not_held?: unknown } | undefined)?.not_held !== undefined;
