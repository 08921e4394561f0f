/** A scored document version. */
export interface SparseScored {
  readonly seq: number;
  readonly score: number;
}

/** A min-heap of the best k so far; its top is the worst of them (lowest score, then highest seq). */
export class Best {
  readonly seqs: number[] = [];
  readonly scores: number[] = [];
  constructor(readonly k: number) {}

  get full(): boolean {
    return this.seqs.length >= this.k;
  }

  get threshold(): number {
    return this.full ? this.scores[0]! : -Infinity;
  }

  #worse(i: number, j: number): boolean {
    const a = this.scores[i]!;
    const b = this.scores[j]!;
    return a < b || (a === b && this.seqs[i]! > this.seqs[j]!);
  }

  #swap(i: number, j: number): void {
    [this.seqs[i], this.seqs[j]] = [this.seqs[j]!, this.seqs[i]!];
    [this.scores[i], this.scores[j]] = [this.scores[j]!, this.scores[i]!];
  }

  /** Offers a document; documents come in ascending seq, so one tying the worst never displaces it. */
  offer(seq: number, score: number): boolean {
    if (!this.full) {
      this.seqs.push(seq);
      this.scores.push(score);
      for (let i = this.seqs.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!this.#worse(i, parent)) break;
        this.#swap(i, parent);
        i = parent;
      }
      return true;
    }
    if (!(score > this.scores[0]!)) return false;
    this.seqs[0] = seq;
    this.scores[0] = score;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < this.seqs.length && this.#worse(l, worst)) worst = l;
      if (r < this.seqs.length && this.#worse(r, worst)) worst = r;
      if (worst === i) break;
      this.#swap(i, worst);
      i = worst;
    }
    return true;
  }

  sorted(): SparseScored[] {
    return this.seqs
      .map((seq, i) => ({ seq, score: this.scores[i]! }))
      .sort((a, b) => b.score - a.score || a.seq - b.seq);
  }
}
