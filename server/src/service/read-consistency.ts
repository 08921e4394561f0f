import { createError } from '@godb/contract';
import type { Consistency } from './context.js';

/**
 * Cluster mode's read options as a transport received them (HTTP headers, gRPC metadata), so that every operation
 * takes them without a field in its schema: `x-godb-consistency: strong` (everything the log holds now; `local`, the
 * default, answers from what this node applied) and `x-godb-min-seq: <n>` (an `x-godb-seq` from an earlier answer).
 * Undefined when neither is given; a bad value is VALIDATION_FAILED naming `<where>.<name>`. A node without
 * `NATS_URL` checks them the same way and has nothing to wait for.
 *
 * @example consistencyOf(request.headers['x-godb-consistency'], request.headers['x-godb-min-seq'], 'headers');
 */
export function consistencyOf(level: unknown, minSeq: unknown, where: 'headers' | 'metadata'): Consistency | undefined {
  if (level === undefined && minSeq === undefined) return undefined;
  if (level !== undefined && level !== 'strong' && level !== 'local') {
    throw createError(
      'VALIDATION_FAILED',
      { detail: 'X-GoDB-Consistency is "strong" or "local"' },
      { field: `${where}.x-godb-consistency` },
    );
  }
  if (minSeq !== undefined && !/^\d{1,15}$/.test(String(minSeq))) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: 'X-GoDB-Min-Seq is a sequence number (an X-GoDB-Seq answer header)' },
      { field: `${where}.x-godb-min-seq` },
    );
  }
  return { strong: level === 'strong', ...(minSeq !== undefined && { minSeq: Number(minSeq) }) };
}
