/** @module Private to lib/kv: a vector slab's scores clamped, and its top k picked (`_vector_slab.ts`). */
import type { VectorMatch } from "../../src/ports/mod.ts";

/** A float32 dot product of unit vectors, kept within [-1, 1]. */
export function clamp(score: number): number {
  return Math.max(-1, Math.min(1, score));
}

/** Picks the `k` best of `scores`, one per row of `ids` (score descending, then id ascending). */
export function selectTop(scores: Float32Array, k: number, ids: readonly string[]): VectorMatch[] {
  const count = scores.length;
  // `worse(a, b)`: row a ranks below row b.
  const worse = (a: number, b: number): boolean =>
    scores[a] < scores[b] || (scores[a] === scores[b] && ids[a] > ids[b]);
  let chosen: number[];
  if (k * 4 >= count) {
    chosen = Array.from({ length: count }, (_, i) => i);
  } else {
    // A min-heap of the best k so far; its root is the worst of them.
    const heap = new Int32Array(k);
    let size = 0;
    const siftDown = (from: number) => {
      let i = from;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let low = i;
        if (l < size && worse(heap[l], heap[low])) low = l;
        if (r < size && worse(heap[r], heap[low])) low = r;
        if (low === i) return;
        [heap[i], heap[low]] = [heap[low], heap[i]];
        i = low;
      }
    };
    for (let row = 0; row < count; row++) {
      if (size < k) {
        let i = size++;
        heap[i] = row;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (!worse(heap[i], heap[parent])) break;
          [heap[i], heap[parent]] = [heap[parent], heap[i]];
          i = parent;
        }
      } else if (scores[row] >= scores[heap[0]] && worse(heap[0], row)) {
        heap[0] = row;
        siftDown(0);
      }
    }
    chosen = Array.from(heap);
  }
  chosen.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
  return chosen.slice(0, k).map((row) =>
    ({
      id: ids[row],
      score: clamp(scores[row]),
    }) as VectorMatch
  );
}
