import { chunkId } from '../documents/document-view.js';
import type { SearchRows } from '../access/search-rows.js';
import { chunksPerHit } from '../text/bm25-index.js';
import { CandidateDocument } from './candidate-document.js';
import type { Hit } from './hit.js';

export interface SearchResultView {
  document_id: string;
  title: string;
  chunks: { id: string; content: string; type: string; score: number; metadata: Record<string, number> }[];
  metadata: Record<string, string | number | boolean>;
  score: number;
  similarity?: number;
  distance?: number;
  table?: string;
  joined?: { table: string; document_id: string; title: string }[];
  strategies?: Record<string, number>;
  /** Text and hybrid search with `highlight`: the matched passages, marked (search/highlights.ts). */
  highlights?: string[];
}

/** A score as answers show it: to six decimals. */
export const round = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * Turns hits into the API's result shape: the top `limit`, each with its best three chunks (a hit found without
 * a chunk shows its document's first). Rows still unread are read in one query.
 */
export function resultViews(store: SearchRows, hits: readonly Hit[], limit: number): SearchResultView[] {
  // Documents known only by seq so far are read in one query (a permanently deleted one is then missing).
  const unread = hits
    .slice(0, limit)
    .flatMap((h) => (h.doc instanceof CandidateDocument && !h.doc.complete ? [h.doc] : []));
  if (unread.length > 0) {
    const rows = new Map(store.fullRows(unread.map((d) => d.seq)).map((row) => [row[0], row]));
    for (const doc of unread) doc.fill(rows.get(doc.seq));
  }
  // A hit whose document was deleted permanently while the search ran (hybrid waits for an embedding) is dropped.
  const top: Hit[] = [];
  for (const hit of hits) {
    if (top.length === limit) break;
    if (!(hit.doc instanceof CandidateDocument && hit.doc.missing)) top.push(hit);
  }
  // Hits found without a chunk (geo, facets, joins) show their document's first chunk.
  const bare = top.filter((h) => h.chunks.length === 0);
  if (bare.length > 0) {
    const first = store.firstChunks(bare.map((h) => h.doc.seq));
    for (const hit of bare) {
      const seq = first.get(hit.doc.seq);
      if (seq !== undefined) hit.chunks = [{ seq, score: hit.score }];
    }
  }
  const chunkSeqs = top.flatMap((h) => h.chunks.slice(0, chunksPerHit).map((c) => c.seq));
  const chunks = store.chunkTexts(chunkSeqs);
  return top.map((hit) => ({
    document_id: hit.doc.id,
    title: hit.doc.title,
    chunks: hit.chunks.slice(0, chunksPerHit).flatMap((c) => {
      const chunk = chunks.get(c.seq);
      return chunk
        ? [
            {
              id: chunkId(hit.doc.id, chunk.chunk_index),
              content: chunk.content,
              type: 'text',
              score: round(c.score),
              // Where the chunk lies in its document (characters of the content).
              metadata: {
                chunk_index: chunk.chunk_index,
                start_offset: chunk.start_offset,
                end_offset: chunk.end_offset,
              },
            },
          ]
        : [];
    }),
    metadata: (hit.doc.fields.metadata ?? {}) as Record<string, string | number | boolean>,
    score: round(hit.score),
    ...(hit.similarity !== undefined && { similarity: round(hit.similarity) }),
    ...(hit.distance !== undefined && { distance: round(hit.distance) }),
    ...(hit.table !== undefined && { table: hit.table }),
    ...(hit.joined !== undefined && { joined: hit.joined }),
    ...(hit.strategies !== undefined && { strategies: hit.strategies }),
  }));
}
