import { createError, minSeqHeader } from '@godb/contract';
import type { Consistency } from './context.js';

/** The shape of an X-GoDB-Min-Seq, as the OpenAPI document publishes it. */
const minSeqShape = new RegExp(minSeqHeader.pattern);

/**
 * Cluster mode's read options as a transport received them (HTTP headers, gRPC metadata), so that every operation
 * takes them without a field in its schema: `x-godb-consistency: strong` (everything the log holds now; `local`, the
 * default, answers from what this node applied) and `x-godb-min-seq: <shard>:<seq>,…` (an `x-godb-seq` from an earlier
 * answer: the place of each shard it depends on).
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
  const text = minSeq === undefined ? undefined : String(minSeq);
  if (text !== undefined && !minSeqShape.test(text)) {
    throw createError(
      'VALIDATION_FAILED',
      {
        detail: 'X-GoDB-Min-Seq is an X-GoDB-Seq answer header: shard:sequence pairs, comma-separated (0:17,5:42)',
      },
      { field: `${where}.x-godb-min-seq` },
    );
  }
  const seqs: Record<number, number> = {};
  for (const pair of text?.split(',') ?? []) {
    const [shard, seq] = pair.split(':').map(Number) as [number, number];
    seqs[shard] = Math.max(seqs[shard] ?? 0, seq);
  }
  return { strong: level === 'strong', ...(text !== undefined && { minSeq: seqs }) };
}
