/**
 * A SentencePiece-style unigram tokenizer: the segmentation of the text into vocabulary pieces with the highest
 * total log-probability (Viterbi over a trie of the pieces). Universal Sentence Encoder Lite ships its vocabulary
 * as `[piece, logProbability]` pairs; ids are positions in that list.
 */
const wordBoundary = '\u2581';

interface TrieNode {
  children: Map<string, TrieNode>;
  /** Vocabulary id of the piece ending here, or -1. */
  id: number;
}

export class UnigramTokenizer {
  readonly #root: TrieNode = { children: new Map(), id: -1 };
  readonly #scores: Float64Array;
  readonly #unknownId: number;
  readonly #unknownScore: number;

  /**
   * @param vocabulary `[piece, score]` pairs; the first `reserved` entries (unknown, control symbols) are never
   *   matched against text.
   */
  constructor(
    vocabulary: readonly (readonly [string, number])[],
    options: { unknownId?: number; reserved?: number } = {},
  ) {
    const reserved = options.reserved ?? 6;
    this.#unknownId = options.unknownId ?? 0;
    this.#scores = new Float64Array(vocabulary.length);
    let lowest = 0;
    vocabulary.forEach(([piece, score], id) => {
      this.#scores[id] = score;
      if (id < reserved) return;
      lowest = Math.min(lowest, score);
      let node = this.#root;
      for (const char of piece) {
        let next = node.children.get(char);
        if (!next) {
          next = { children: new Map(), id: -1 };
          node.children.set(char, next);
        }
        node = next;
      }
      node.id = id;
    });
    // An unknown character costs more than any known piece, so it is used only when nothing else matches.
    this.#unknownScore = lowest - 10;
  }

  /** SentencePiece normalisation: NFKC, and a word-boundary mark before the text and in place of every space. */
  static normalize(text: string): string {
    const normalized = text.normalize('NFKC').replace(/\s+/g, ' ').trim();
    return normalized.length === 0 ? '' : wordBoundary + normalized.replace(/ /g, wordBoundary);
  }

  /** Token ids of `text`; consecutive unknown characters become a single unknown token. */
  encode(text: string): number[] {
    const chars = Array.from(UnigramTokenizer.normalize(text));
    const n = chars.length;
    if (n === 0) return [];
    const best = new Float64Array(n + 1).fill(-Infinity);
    const backStart = new Int32Array(n + 1);
    const backId = new Int32Array(n + 1);
    best[0] = 0;
    for (let start = 0; start < n; start += 1) {
      const base = best[start]!;
      if (base === -Infinity) continue;
      let node: TrieNode | undefined = this.#root;
      let matched = false;
      for (let end = start; end < n && node; end += 1) {
        node = node.children.get(chars[end]!);
        if (node && node.id >= 0) {
          matched ||= end === start;
          const score = base + this.#scores[node.id]!;
          if (score > best[end + 1]!) {
            best[end + 1] = score;
            backStart[end + 1] = start;
            backId[end + 1] = node.id;
          }
        }
      }
      if (!matched) {
        const score = base + this.#unknownScore;
        if (score > best[start + 1]!) {
          best[start + 1] = score;
          backStart[start + 1] = start;
          backId[start + 1] = this.#unknownId;
        }
      }
    }
    const ids: number[] = [];
    for (let end = n; end > 0; end = backStart[end]!) ids.push(backId[end]!);
    ids.reverse();
    return ids.filter((id, i) => !(id === this.#unknownId && ids[i - 1] === this.#unknownId));
  }
}
