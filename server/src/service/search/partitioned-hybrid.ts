import { createError, hybridDefaults } from '@godb/contract';
import { fuseSides, type FusedEntry, type Fusion, type SideEntry } from '../../engine/search/hybrid-fusion.js';
import type { HybridSidesAnswer, SideRecord } from '../../engine/search/hybrid-sides-answer.js';
import { round, type SearchResultView } from '../../engine/search/result-view.js';
import { chunksPerHit } from '../../engine/text/bm25-index.js';
import { askedLimit, byScoreThenId, partsOf, type TenantRequest } from './partitioned-request.js';
import { splitRefused, summedStats } from './partitioned-text.js';

/**
 * A hybrid search of a partitioned collection, or of the whole tenant holding some (issue #41): the text side's
 * statistics summed over the shards (the dfs round of partitioned-text.ts), then every shard's two sides — its best `2 · limit` documents by BM25 ranked
 * with those statistics, and by vector — which this node merges into the collection's two sides and fuses exactly
 * as one node does (engine/search/hybrid-fusion.ts, by document and chunk ids). Each side's global best `2 · limit`
 * are among the shards' own best, so the fusion, its scores and its order are one node's.
 *
 * `use_ml_ranking` answers 501: the ranking model learns from the engagement each node records.
 *
 * @example const answer = await partitionedHybrid({ partitions, tenantId, table: 'papers', body, principal, allowPartial: false });
 */
export async function partitionedHybrid(request: TenantRequest): Promise<object> {
  const { table, body } = request;
  const given = body as {
    query?: unknown;
    limit?: unknown;
    alpha?: unknown;
    fusion?: unknown;
    use_ml_ranking?: unknown;
    explain?: unknown;
  };
  if (given.use_ml_ranking === true) {
    const where =
      table === null
        ? 'without primary_table on a tenant with partitioned collections'
        : `on the partitioned collection ${table}`;
    throw createError('NOT_IMPLEMENTED', { operation: `search-hybrid with use_ml_ranking ${where}`, issue: 41 });
  }
  const limit = askedLimit(body);
  const alpha = typeof given.alpha === 'number' ? given.alpha : hybridDefaults.alpha;
  const fusion = (typeof given.fusion === 'string' ? given.fusion : hybridDefaults.fusion) as Fusion;
  const withText = typeof given.query === 'string' && given.query.trim() !== '';
  const first = withText ? await summedStats(request, 'search-hybrid') : undefined;
  // Of the whole tenant (table null): every partitioned collection's shards, and this node's part for the rest.
  const second = await partsOf(request, 'search-hybrid', { phase: 'sides', ...(first && { stats: first.stats }) });
  const answers = second.answers as HybridSidesAnswer[];
  // Split documents rank as wholes, which given statistics cannot do: only a text side is refused.
  if (withText && answers.some((a) => a.split)) throw splitRefused('search-hybrid', table ?? 'of the tenant');
  const depth = limit * 2;
  const text = collectionSide(
    answers.map((a) => a.text),
    depth,
  );
  const vector = collectionSide(
    answers.map((a) => a.vector),
    depth,
  );
  const vectorRecords = new Map(vector.map((e) => [e.key, e.item]));
  const fused = fuseSides(text, vector, alpha, fusion);
  const notes = [...new Set([...answers.flatMap((a) => a.notes), ...(first?.notes ?? [])])];
  const missing = [...new Set([...(first?.missing ?? []), ...second.missing])].sort((a, b) => a - b);
  return {
    results: fused.slice(0, limit).map((entry) => fusedView(entry, vectorRecords.get(entry.key))),
    total_hits: fused.length,
    time_taken: Math.max(0, ...answers.map((a) => a.time_taken)),
    ranking: fusion,
    ...(notes.length > 0 && { notes }),
    ...(given.explain === true && answers[0] && { plan: answers[0].plan }),
    ...(missing.length > 0 && { missing_shards: missing }),
  };
}

/**
 * One side of the whole collection from the shards' sides: a document held by several of the asked nodes is kept
 * once (same document, same score), best first (ties by id), its best `depth`.
 */
function collectionSide(sides: readonly (readonly SideRecord[])[], depth: number): SideEntry<string, SideRecord>[] {
  const seen = new Map<string, SideRecord>();
  for (const side of sides)
    for (const record of side) if (!seen.has(record.document_id)) seen.set(record.document_id, record);
  return [...seen.values()]
    .sort(byScoreThenId)
    .slice(0, depth)
    .map((record) => ({
      key: record.document_id,
      score: record.score,
      chunks: record.chunks.map((c) => ({ key: c.id, score: c.score })),
      item: record,
    }));
}

/**
 * A fused document as one node shows it (result-view.ts): its fused score, and its best three chunks by fused
 * score (chunksPerHit), their texts from the sides' results; a document neither side found a chunk of shows its first chunk with
 * the document's score.
 */
function fusedView(entry: FusedEntry<string, SideRecord>, fromVector: SideRecord | undefined): SearchResultView {
  const view = entry.item.view;
  const shown = new Map<string, SearchResultView['chunks'][number]>();
  for (const chunk of [...view.chunks, ...(fromVector?.view.chunks ?? [])])
    if (!shown.has(chunk.id)) shown.set(chunk.id, chunk);
  const chunks =
    entry.chunks.length === 0
      ? view.chunks.slice(0, 1).map((c) => ({ ...c, score: round(entry.score) }))
      : entry.chunks.flatMap((c) => {
          const chunk = shown.get(c.key);
          return chunk ? [{ ...chunk, score: round(c.score) }] : [];
        });
  return { ...view, chunks: chunks.slice(0, chunksPerHit), score: round(entry.score) };
}
