type Listed = Record<string, unknown>;

const idOf = (item: unknown): string | undefined => {
  const entry = item as { document_id?: unknown; id?: unknown } | null;
  const id = entry?.document_id ?? entry?.id;
  return typeof id === 'string' ? id : undefined;
};

/**
 * A node's part of a fanned-out search without the documents of the shards it is moving into (decision 0082): it
 * has replayed only part of such a shard, so its copy of a document there may be older than the serving replicas',
 * or deleted since. The lists answers carry are filtered: `results` (hits), `documents` (a scroll page), and a
 * hybrid search's `text` and `vector` sides. Counts need nothing: they count the shards asked of the node only.
 *
 * @example withoutMoving({ results: [{ document_id: 'a' }] }, (id) => id === 'a'); // { results: [] }
 */
export function withoutMoving(answer: unknown, moving: (id: string) => boolean): unknown {
  if (answer === null || typeof answer !== 'object') return answer;
  const out: Listed = { ...(answer as Listed) };
  for (const key of ['results', 'documents', 'text', 'vector']) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.filter((item) => !moving(idOf(item) ?? ''));
  }
  return out;
}
