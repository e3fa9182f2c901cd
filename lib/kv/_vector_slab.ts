/** @module One agent's unit vectors in one contiguous Float32Array, scanned exactly for the top matches. */
import type { VectorMatch } from "../../src/ports/vector_index.ts";
import { instantiateKernel, KERNEL_STEP, type ScoreRows } from "./_dot_kernel.ts";

/** Below this many rows a plain JavaScript scan is as fast and needs no WebAssembly memory. */
const KERNEL_MIN_ROWS = 512;
const PAGE_BYTES = 65_536;

/**
 * An exact in-memory cosine index for one agent. Rows are unit vectors zero-padded to a stride
 * of 16 floats, stored back to back; a slot freed by a delete is filled by the last row. Large
 * slabs live in WebAssembly memory and are scanned by the SIMD kernel; layout in bytes:
 * `[rows: capacity × stride × 4][query: stride × 4][scores: capacity × 4]`.
 */
export class VectorSlab {
  readonly dimensions: number;
  readonly #stride: number;
  #capacity = 0;
  #rows: Float32Array = new Float32Array(0);
  #memory: WebAssembly.Memory | null = null;
  #kernel: ScoreRows | null = null;
  #scratch = new Float32Array(0);
  readonly #ids: string[] = [];
  readonly #slots = new Map<string, number>();
  /** Bumped when ids move or change, so a similarities snapshot knows its slots are stale. */
  #version = 0;

  constructor(dimensions: number) {
    this.dimensions = dimensions;
    this.#stride = Math.ceil(dimensions / KERNEL_STEP) * KERNEL_STEP;
  }

  /** How many vectors. */
  get size(): number {
    return this.#ids.length;
  }

  /** Whether an id is stored. */
  has(id: string): boolean {
    return this.#slots.has(id);
  }

  /** A copy of a stored vector, or null. */
  get(id: string): Float32Array | null {
    const slot = this.#slots.get(id);
    if (slot === undefined) return null;
    const start = slot * this.#stride;
    return this.#rows.slice(start, start + this.dimensions);
  }

  /** Stores or replaces a vector; `unit` must be unit-length with `dimensions` values. */
  set(id: string, unit: Float32Array): void {
    let slot = this.#slots.get(id);
    if (slot === undefined) {
      slot = this.#ids.length;
      if (slot >= this.#capacity) this.#grow(slot + 1);
      this.#ids.push(id);
      this.#slots.set(id, slot);
    }
    this.#version++;
    const start = slot * this.#stride;
    this.#rows.set(unit, start);
    this.#rows.fill(0, start + this.dimensions, start + this.#stride);
  }

  /** Removes a vector; returns whether it was there. */
  delete(id: string): boolean {
    const slot = this.#slots.get(id);
    if (slot === undefined) return false;
    this.#version++;
    const last = this.#ids.length - 1;
    if (slot !== last) {
      const lastId = this.#ids[last];
      this.#rows.copyWithin(slot * this.#stride, last * this.#stride, (last + 1) * this.#stride);
      this.#ids[slot] = lastId;
      this.#slots.set(lastId, slot);
    }
    this.#rows.fill(0, last * this.#stride, (last + 1) * this.#stride);
    this.#ids.pop();
    this.#slots.delete(id);
    return true;
  }

  /**
   * The cosine of `unit` with every stored vector, as a lookup by id (undefined for unknown
   * ids). The scores are a snapshot: later writes to the slab do not change them.
   */
  similarities(unit: Float32Array): (id: string) => number | undefined {
    const count = this.#ids.length;
    if (count === 0) return () => undefined;
    const scores = this.#score(unit).slice(0, count);
    const version = this.#version;
    const ids = this.#ids.slice();
    let snapshot: Map<string, number> | null = null;
    return (id) => {
      let slot: number | undefined;
      if (version === this.#version) {
        slot = this.#slots.get(id);
      } else {
        snapshot ??= new Map(ids.map((each, i) => [each, i]));
        slot = snapshot.get(id);
      }
      return slot === undefined ? undefined : Math.max(-1, Math.min(1, scores[slot]));
    };
  }

  /** The `topK` rows most similar to the unit vector `unit`, best first; ties by id. */
  query(unit: Float32Array, topK: number): VectorMatch[] {
    const count = this.#ids.length;
    const k = Math.min(Math.floor(topK), count);
    if (k <= 0) return [];
    const scores = this.#score(unit);
    return selectTop(scores, count, k, this.#ids);
  }

  #score(unit: Float32Array): Float32Array {
    const count = this.#ids.length;
    const stride = this.#stride;
    if (this.#kernel !== null && this.#memory !== null) {
      const rowBytes = this.#capacity * stride * 4;
      const queryOffset = rowBytes;
      const scoresOffset = rowBytes + stride * 4;
      const query = new Float32Array(this.#memory.buffer, queryOffset, stride);
      query.fill(0);
      query.set(unit);
      this.#kernel(0, count, stride, queryOffset, scoresOffset);
      return new Float32Array(this.#memory.buffer, scoresOffset, count);
    }
    if (this.#scratch.length < count) this.#scratch = new Float32Array(this.#capacity);
    const rows = this.#rows;
    const dims = this.dimensions;
    for (let r = 0, base = 0; r < count; r++, base += stride) {
      let sum = 0;
      for (let j = 0; j < dims; j++) sum += rows[base + j] * unit[j];
      this.#scratch[r] = sum;
    }
    return this.#scratch;
  }

  #grow(minimum: number): void {
    const capacity = Math.max(minimum, 64, this.#capacity * 2);
    const stride = this.#stride;
    const used = this.#ids.length * stride;
    if (capacity >= KERNEL_MIN_ROWS) {
      const bytes = capacity * stride * 4 + stride * 4 + capacity * 4;
      const pages = Math.ceil(bytes / PAGE_BYTES);
      if (this.#memory === null) {
        const memory = this.#tryMemory(pages);
        if (memory !== null) {
          const rows = new Float32Array(memory.buffer, 0, capacity * stride);
          rows.set(this.#rows.subarray(0, used));
          this.#memory = memory;
          this.#rows = rows;
          this.#capacity = capacity;
          return;
        }
      } else {
        const current = this.#memory.buffer.byteLength / PAGE_BYTES;
        if (pages > current) this.#memory.grow(pages - current);
        // Growing detaches the old views; rows keep their offsets, scratch areas move.
        this.#rows = new Float32Array(this.#memory.buffer, 0, capacity * stride);
        this.#rows.fill(0, used);
        this.#capacity = capacity;
        return;
      }
    }
    const rows = new Float32Array(capacity * stride);
    rows.set(this.#rows.subarray(0, used));
    this.#rows = rows;
    this.#capacity = capacity;
  }

  /** WebAssembly memory with the kernel bound to it, or null (then scans stay in JavaScript). */
  #tryMemory(pages: number): WebAssembly.Memory | null {
    try {
      const memory = new WebAssembly.Memory({ initial: pages });
      const kernel = instantiateKernel(memory);
      if (kernel === null) return null;
      this.#kernel = kernel;
      return memory;
    } catch {
      // No address space for another memory: the JavaScript scan is slower but exact.
      return null;
    }
  }
}

/** Picks the `k` best of `count` scores (score descending, then id ascending). */
function selectTop(
  scores: Float32Array,
  count: number,
  k: number,
  ids: readonly string[],
): VectorMatch[] {
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
      score: Math.max(-1, Math.min(1, scores[row])),
    }) as VectorMatch
  );
}
