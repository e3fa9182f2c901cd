/**
 * @module One agent's unit vectors, stored column-major in blocks and scanned exactly.
 *
 * ## Layout
 * Rows (one per vector) are grouped in blocks of {@linkcode BLOCK_ROWS}. A block of capacity
 * `cap` is one Float32Array of `dimensions × cap` floats, column-major: dimension `j` of the
 * block's row `r` is at `j × cap + r`. Every block but the last is full; the last one starts at
 * {@linkcode MIN_BLOCK_ROWS} and doubles (re-laid out) up to {@linkcode BLOCK_ROWS}, so a small
 * agent costs little memory. A slot freed by a delete is filled by the last row.
 *
 * ## Why column-major
 * Scoring a block is `acc += q_j · column_j` for each dimension where the query is not zero.
 * The local embedder's vectors are sparse (feature hashing: ~10–60 non-zeros of 384), so a
 * query reads only its few columns (~15 × 100k floats instead of 384 × 100k), sequentially;
 * a dense query (OpenAI embeddings) reads every column, still sequentially, with the
 * accumulator (one block's scores, 16 KiB) in L1. Once a slab has {@linkcode KERNEL_MIN_ROWS}
 * rows its blocks move into WebAssembly memory and the SIMD kernel of `_dot_kernel.ts` scans
 * them; the JavaScript loop rounds exactly like the kernel, so both give identical scores.
 * Scores are float32 sums taken in ascending dimension order.
 *
 * WebAssembly memory layout in bytes: `[list: dims × 8, padded to 64][acc: BLOCK_ROWS × 4]`
 * then the blocks back to back (each full block `dims × BLOCK_ROWS × 4`, the last one
 * `dims × cap × 4`).
 */
import type { VectorMatch, VectorSearch } from "../../src/ports/vector_index.ts";
import {
  type ColumnKernel,
  COLUMNS_PER_PASS,
  instantiateKernel,
  KERNEL_STEP,
} from "./_dot_kernel.ts";

/** Rows per full block: its accumulator (16 KiB of float32 scores) stays in L1. */
const BLOCK_ROWS = 4096;
const BLOCK_SHIFT = 12;
/** The first capacity of a new block (a multiple of the kernel's 16-float step). */
const MIN_BLOCK_ROWS = 64;
/** Below this many rows a JavaScript scan is fast enough and needs no WebAssembly memory. */
const KERNEL_MIN_ROWS = 512;
const PAGE_BYTES = 65_536;

/** Which memory slots hold the vectors of a caller's ids, kept up to date incrementally. */
interface Alignment {
  /** The caller's ids, an append-only array (its identity is the cache key). */
  source: readonly string[];
  /** The slab's `#layout` when built: a delete moves rows and invalidates it. */
  layout: number;
  /** The slab's `#added` when `missing` was last checked. */
  added: number;
  /** `slots[c]`: the slot of `source[c]`, or -1 without a vector. */
  slots: Int32Array;
  /** How many of `source` are mapped. */
  mapped: number;
  /** Positions mapped to -1, rechecked when vectors are added. */
  missing: number[];
}

/**
 * An exact in-memory cosine index for one agent (see the module doc for the layout). Rows are
 * unit vectors; every score is a float32 dot product.
 */
export class VectorSlab {
  readonly dimensions: number;
  /** One Float32Array per block (views of the WebAssembly memory once it is used). */
  #blocks: Float32Array[] = [];
  /** The capacity of the last block; every other block holds BLOCK_ROWS. */
  #lastCap = 0;
  #memory: WebAssembly.Memory | null = null;
  #kernel: ColumnKernel | null = null;
  /** False once WebAssembly memory could not be had: scans stay in JavaScript. */
  #wasm = true;
  /** Scores of the last scan, by slot; reused. */
  #scores = new Float32Array(0);
  /** Scores of the last `cosinesOf`, aligned with its ids; reused. */
  #aligned = new Float32Array(0);
  readonly #ids: string[] = [];
  readonly #slots = new Map<string, number>();
  /** Bumped on every write, so a similarities snapshot knows its slots may be stale. */
  #version = 0;
  /** Bumped when a row leaves or moves (delete). */
  #layout = 0;
  /** Bumped when a new id gets a row. */
  #added = 0;
  #alignment: Alignment | null = null;

  constructor(dimensions: number) {
    this.dimensions = dimensions;
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
    const out = new Float32Array(this.dimensions);
    const block = this.#blocks[slot >>> BLOCK_SHIFT];
    const cap = this.#capOf(slot >>> BLOCK_SHIFT);
    const r = slot & (BLOCK_ROWS - 1);
    for (let j = 0; j < this.dimensions; j++) out[j] = block[j * cap + r];
    return out;
  }

  /** Stores or replaces a vector; `unit` must be unit-length with `dimensions` values. */
  set(id: string, unit: Float32Array): void {
    let slot = this.#slots.get(id);
    if (slot === undefined) {
      slot = this.#ids.length;
      this.#reserve(slot);
      this.#ids.push(id);
      this.#slots.set(id, slot);
      this.#added++;
    }
    this.#version++;
    this.#writeRow(slot, unit);
  }

  /** Removes a vector; returns whether it was there. */
  delete(id: string): boolean {
    const slot = this.#slots.get(id);
    if (slot === undefined) return false;
    this.#version++;
    this.#layout++;
    const last = this.#ids.length - 1;
    if (slot !== last) {
      const lastId = this.#ids[last];
      this.#writeRow(slot, this.get(lastId)!);
      this.#ids[slot] = lastId;
      this.#slots.set(lastId, slot);
    }
    this.#writeRow(last, null);
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
      return slot === undefined ? undefined : clamp(scores[slot]);
    };
  }

  /**
   * The cosine of `unit` with the vectors of `source[0..count)`, aligned with it (0 for an id
   * without a vector). `source` must be append-only (ids are never removed or reordered): the
   * id-to-slot mapping is cached per `source` and extended as it grows, so a scan costs no
   * lookups by id unless rows moved. Returns a scratch array the next call overwrites.
   */
  cosinesOf(unit: Float32Array, source: readonly string[], count: number): Float32Array {
    if (this.#aligned.length < count) {
      this.#aligned = new Float32Array(Math.max(count, 2 * this.#aligned.length));
    }
    const out = this.#aligned.subarray(0, count);
    out.fill(0);
    if (count === 0 || this.#ids.length === 0) return out;
    const slots = this.#align(source, count);
    const scores = this.#score(unit);
    for (let c = 0; c < count; c++) {
      const slot = slots[c];
      if (slot >= 0) out[c] = clamp(scores[slot]);
    }
    return out;
  }

  /**
   * The positions of `source[0..count)` without a vector, as of the last
   * {@linkcode cosinesOf} over the same `source` (all of them when the slab is empty).
   */
  missingOf(source: readonly string[], count: number): readonly number[] {
    if (this.#ids.length === 0) return Array.from({ length: count }, (_, c) => c);
    const a = this.#alignment;
    if (a === null || a.source !== source) return [];
    return a.missing.filter((c) => c < count);
  }

  /** Every stored id. */
  ids(): string[] {
    return [...this.#ids];
  }

  /** The `topK` rows most similar to the unit vector `unit`, best first; ties by id. */
  query(unit: Float32Array, topK: number): VectorMatch[] {
    return this.search(unit, topK).matches;
  }

  /** As {@linkcode query}, with the least similarity of any row (null when there is none). */
  search(unit: Float32Array, topK: number): VectorSearch {
    const count = this.#ids.length;
    if (count === 0) return { matches: [], lowest: null };
    const scores = this.#score(unit);
    let lowest = Infinity;
    for (let i = 0; i < count; i++) if (scores[i] < lowest) lowest = scores[i];
    const k = Math.min(Math.floor(topK), count);
    return { matches: k > 0 ? selectTop(scores, count, k, this.#ids) : [], lowest: clamp(lowest) };
  }

  /** The slot of each of `source[0..count)`, or -1; see {@linkcode cosinesOf}. */
  #align(source: readonly string[], count: number): Int32Array {
    let a = this.#alignment;
    if (a === null || a.source !== source || a.layout !== this.#layout) {
      a = {
        source,
        layout: this.#layout,
        added: this.#added,
        slots: new Int32Array(Math.max(count, 64)),
        mapped: 0,
        missing: [],
      };
      this.#alignment = a;
    } else if (a.added !== this.#added && a.missing.length > 0) {
      // Vectors written after their memories: map the ids that had none.
      const slots = a.slots;
      a.missing = a.missing.filter((c) => {
        const slot = this.#slots.get(source[c]);
        if (slot === undefined) return true;
        slots[c] = slot;
        return false;
      });
    }
    a.added = this.#added;
    if (count > a.mapped) {
      if (count > a.slots.length) {
        const grown = new Int32Array(Math.max(count, a.slots.length * 2));
        grown.set(a.slots.subarray(0, a.mapped));
        a.slots = grown;
      }
      for (let c = a.mapped; c < count; c++) {
        const slot = this.#slots.get(source[c]);
        if (slot === undefined) {
          a.slots[c] = -1;
          a.missing.push(c);
        } else {
          a.slots[c] = slot;
        }
      }
      a.mapped = count;
    }
    return a.slots;
  }

  /** The dot product of `unit` with every row, by slot (a scratch array reused by the next scan). */
  #score(unit: Float32Array): Float32Array {
    const count = this.#ids.length;
    if (this.#scores.length < count) this.#scores = new Float32Array(this.#capacity());
    const scores = this.#scores;
    // The query's non-zero dimensions, ascending: the only columns a scan reads.
    const active: number[] = [];
    for (let j = 0; j < this.dimensions; j++) if (unit[j] !== 0) active.push(j);
    const kernel = this.#kernel;
    const memory = this.#memory;
    let listCap = -1;
    for (let b = 0; b * BLOCK_ROWS < count; b++) {
      const start = b * BLOCK_ROWS;
      const rows = Math.min(BLOCK_ROWS, count - start);
      const cap = this.#capOf(b);
      if (kernel !== null && memory !== null) {
        const header = headerBytes(this.dimensions);
        if (cap !== listCap) {
          // Entries: (byte offset of column j within the block, q_j).
          const ints = new Int32Array(memory.buffer, 0, active.length * 2);
          const floats = new Float32Array(memory.buffer, 0, active.length * 2);
          active.forEach((j, i) => {
            ints[2 * i] = j * cap * 4;
            floats[2 * i + 1] = unit[j];
          });
          listCap = cap;
        }
        const accOffset = listBytes(this.dimensions);
        const padded = Math.ceil(rows / KERNEL_STEP) * KERNEL_STEP; // ≤ cap, a multiple too
        const acc = new Float32Array(memory.buffer, accOffset, padded);
        acc.fill(0);
        const base = header + b * blockBytes(this.dimensions, BLOCK_ROWS);
        const quads = active.length - (active.length % COLUMNS_PER_PASS);
        if (quads > 0) kernel.columns4(base, accOffset, padded * 4, 0, quads);
        if (active.length > quads) {
          kernel.columns1(base, accOffset, padded * 4, quads * 8, active.length - quads);
        }
        scores.set(acc.subarray(0, rows), start);
      } else {
        const block = this.#blocks[b];
        const acc = scores.subarray(start, start + rows);
        acc.fill(0);
        for (const j of active) {
          const w = unit[j];
          const offset = j * cap;
          // Rounded like the kernel: a float32 product, then a float32 sum (the store rounds).
          for (let r = 0; r < rows; r++) acc[r] += Math.fround(w * block[offset + r]);
        }
      }
    }
    return scores;
  }

  /** The capacity of block `b`. */
  #capOf(b: number): number {
    return b === this.#blocks.length - 1 ? this.#lastCap : BLOCK_ROWS;
  }

  /** Rows the blocks hold. */
  #capacity(): number {
    return this.#blocks.length === 0 ? 0 : (this.#blocks.length - 1) * BLOCK_ROWS + this.#lastCap;
  }

  /** Writes a row (zeros for null) at a slot within the capacity. */
  #writeRow(slot: number, unit: Float32Array | null): void {
    const b = slot >>> BLOCK_SHIFT;
    const block = this.#blocks[b];
    const cap = this.#capOf(b);
    const r = slot & (BLOCK_ROWS - 1);
    for (let j = 0; j < this.dimensions; j++) block[j * cap + r] = unit === null ? 0 : unit[j];
  }

  /** Makes room for row `slot` (the next row): a new block, or a larger last block. */
  #reserve(slot: number): void {
    const b = slot >>> BLOCK_SHIFT;
    if (b === this.#blocks.length) {
      this.#place(b, MIN_BLOCK_ROWS);
    } else if ((slot & (BLOCK_ROWS - 1)) >= this.#lastCap) {
      this.#place(b, this.#lastCap * 2);
    }
  }

  /**
   * Gives the last block (`b`, or a new one when `b` is the block count) capacity `cap`, moving
   * its columns to their new offsets, and moves the slab into WebAssembly memory once it is
   * large enough.
   */
  #place(b: number, cap: number): void {
    const dims = this.dimensions;
    const old = b < this.#blocks.length ? this.#blocks[b] : null;
    const oldCap = old === null ? 0 : this.#lastCap;
    if (this.#memory === null && this.#wasm && b * BLOCK_ROWS + cap >= KERNEL_MIN_ROWS) {
      this.#enterWasm();
    }
    const memory = this.#memory;
    if (memory !== null) {
      const base = headerBytes(dims) + b * blockBytes(dims, BLOCK_ROWS);
      if (this.#growMemory(base + blockBytes(dims, cap))) {
        const buffer = this.#memory!.buffer;
        const all = new Float32Array(buffer, base, dims * cap);
        // In place, highest column first: column j moves up from j × oldCap to j × cap.
        for (let j = dims - 1; j >= 0 && oldCap > 0; j--) {
          all.copyWithin(j * cap, j * oldCap, j * oldCap + oldCap);
          all.fill(0, j * cap + oldCap, (j + 1) * cap);
        }
        if (oldCap === 0) all.fill(0);
        this.#lastCap = cap;
        if (old === null) this.#blocks.push(all);
        else this.#blocks[b] = all;
        this.#rebindViews();
        return;
      }
    }
    const block = new Float32Array(dims * cap);
    if (old !== null) {
      for (let j = 0; j < dims; j++) {
        block.set(old.subarray(j * oldCap, j * oldCap + oldCap), j * cap);
      }
    }
    this.#lastCap = cap;
    if (old === null) this.#blocks.push(block);
    else this.#blocks[b] = block;
  }

  /**
   * Copies the blocks into a new WebAssembly memory and binds the kernel to it; stays in
   * JavaScript (for good) where that fails.
   */
  #enterWasm(): void {
    const dims = this.dimensions;
    const bytes = headerBytes(dims) +
      this.#blocks.reduce((sum, block) => sum + block.byteLength, 0);
    let memory: WebAssembly.Memory | null = null;
    let kernel: ColumnKernel | null = null;
    try {
      memory = new WebAssembly.Memory({ initial: Math.ceil(bytes / PAGE_BYTES) });
      kernel = instantiateKernel(memory);
    } catch {
      // No address space for another memory: the JavaScript scan is slower but exact.
    }
    if (memory === null || kernel === null) {
      this.#wasm = false;
      return;
    }
    const buffer = memory.buffer;
    let offset = headerBytes(dims);
    this.#blocks = this.#blocks.map((block) => {
      const view = new Float32Array(buffer, offset, block.length);
      view.set(block);
      offset += block.byteLength;
      return view;
    });
    this.#memory = memory;
    this.#kernel = kernel;
  }

  /**
   * Grows the WebAssembly memory to at least `bytes` (rebinding views). Where it cannot grow,
   * copies the blocks back into JavaScript arrays, drops the kernel and returns false.
   */
  #growMemory(bytes: number): boolean {
    const memory = this.#memory!;
    const pages = Math.ceil(bytes / PAGE_BYTES);
    const current = memory.buffer.byteLength / PAGE_BYTES;
    if (pages <= current) return true;
    try {
      memory.grow(pages - current);
    } catch {
      // Out of address space (a 32-bit memory holds 4 GiB): keep going in JavaScript.
      this.#blocks = this.#blocks.map((block) => block.slice());
      this.#memory = null;
      this.#kernel = null;
      this.#wasm = false;
      return false;
    }
    this.#rebindViews();
    return true;
  }

  /** Recreates the block views after the memory's buffer changed (growing detaches it). */
  #rebindViews(): void {
    const memory = this.#memory!;
    const dims = this.dimensions;
    let offset = headerBytes(dims);
    this.#blocks = this.#blocks.map((_, b) => {
      const length = dims * this.#capOf(b);
      const view = new Float32Array(memory.buffer, offset, length);
      offset += length * 4;
      return view;
    });
  }
}

/** Bytes of the kernel's list: one (i32 offset, f32 weight) entry per dimension, 64-aligned. */
function listBytes(dimensions: number): number {
  return Math.ceil((dimensions * 8) / 64) * 64;
}

/** Bytes before the first block in WebAssembly memory: the list, then one block's scores. */
function headerBytes(dimensions: number): number {
  return listBytes(dimensions) + BLOCK_ROWS * 4;
}

function blockBytes(dimensions: number, cap: number): number {
  return dimensions * cap * 4;
}

/** A float32 dot product of unit vectors, kept within [-1, 1]. */
function clamp(score: number): number {
  return Math.max(-1, Math.min(1, score));
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
      score: clamp(scores[row]),
    }) as VectorMatch
  );
}
