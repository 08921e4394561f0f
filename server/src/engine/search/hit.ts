import type { FilterableDocument } from './filters.js';

/** A candidate document as ranking sees it: what filters read, and its seq, location and embedding model. */
export interface LoadedDocument extends FilterableDocument {
  readonly seq: number;
  readonly lat: number | null;
  readonly lon: number | null;
  readonly model: string | null;
}

/** A chunk that matched, with its score. */
export interface ChunkHit {
  readonly seq: number;
  readonly score: number;
}

/** A document a search found: its score (its best chunk's), its matching chunks best first, and what the kind adds. */
export interface Hit {
  readonly doc: LoadedDocument;
  score: number;
  /** Vector search: the method's raw similarity, when the score is the model's calibrated relevance. */
  similarity?: number;
  chunks: ChunkHit[];
  distance?: number;
  table?: string;
  joined?: { table: string; document_id: string; title: string }[];
  /** Recommendations: the score each strategy gave. */
  strategies?: Record<string, number>;
}
