/** @module Private to domain/memory: the bounded heap that keeps a ranking's best `k` rows. */

/** What the heap reads of a row to break ties: the newer, then the smaller id, ranks first. */
export interface TopKRow {
  readonly id: string;
  readonly createdAt: string;
}

/**
 * The best `k` candidates seen, in a min-heap whose root is the worst kept. Order: score, then
 * newer `createdAt`, then smaller id. Slot `k`, past the heap, holds the row being offered, so
 * every comparison is between two slots.
 */
export class TopK {
  readonly #k: number;
  readonly #records: readonly TopKRow[];
  readonly #rows: Int32Array;
  readonly #scores: Float64Array;
  #size = 0;

  constructor(k: number, records: readonly TopKRow[]) {
    this.#k = k;
    this.#records = records;
    this.#rows = new Int32Array(k + 1);
    this.#scores = new Float64Array(k + 1);
  }

  /** The worst kept score (once full). */
  get worst(): number {
    return this.#scores[0];
  }

  /** Keeps row `i` with `score` if it ranks among the best `k` so far; returns whether full. */
  offer(i: number, score: number): boolean {
    if (this.#size < this.#k) {
      let p = this.#size++;
      this.#put(p, i, score);
      while (p > 0) {
        const parent = (p - 1) >> 1;
        if (!this.#better(parent, p)) break;
        this.#put(p, this.#rows[parent], this.#scores[parent]);
        this.#put(p = parent, i, score);
      }
    } else {
      this.#put(this.#k, i, score);
      if (this.#better(this.#k, 0)) this.#siftDown();
    }
    return this.#size === this.#k;
  }

  /** The kept rows and scores, best first. */
  best(): [row: number, score: number][] {
    const slots = Array.from({ length: this.#size }, (_, p) => p);
    return slots
      .sort((a, b) => (this.#better(a, b) ? -1 : 1))
      .map((p) => [this.#rows[p], this.#scores[p]]);
  }

  /** Replaces the root with the row offered (in slot k) and restores the heap. */
  #siftDown(): void {
    const offered = this.#k;
    let p = 0;
    for (;;) {
      const l = 2 * p + 1;
      const r = l + 1;
      let w = offered;
      if (l < this.#size && this.#better(w, l)) w = l;
      if (r < this.#size && this.#better(w, r)) w = r;
      if (w === offered) break;
      this.#put(p, this.#rows[w], this.#scores[w]);
      p = w;
    }
    this.#put(p, this.#rows[offered], this.#scores[offered]);
  }

  #put(p: number, row: number, score: number): void {
    this.#rows[p] = row;
    this.#scores[p] = score;
  }

  /** Whether the row in slot p ranks above the row in slot q. */
  #better(p: number, q: number): boolean {
    const sp = this.#scores[p], sq = this.#scores[q];
    if (sp !== sq) return sp > sq;
    const a = this.#records[this.#rows[p]];
    const b = this.#records[this.#rows[q]];
    if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt;
    return a.id < b.id;
  }
}
