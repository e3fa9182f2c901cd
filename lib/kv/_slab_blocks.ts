/**
 * @module The storage of a vector slab: unit vectors column-major in blocks, in JavaScript arrays or
 * WebAssembly memory, and the exact scan of them.
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
import {
  type ColumnKernel,
  COLUMNS_PER_PASS,
  instantiateKernel,
  KERNEL_STEP,
} from "./_dot_kernel.ts";
import type { SparseRows } from "./_pack_rows.ts";
import {
  BLOCK_ROWS,
  BLOCK_SHIFT,
  blockBytes,
  forEachRun,
  headerBytes,
  listBytes,
  type SlabShape,
} from "./_slab_runs.ts";

/** The first capacity of a new block (a multiple of the kernel's 16-float step). */
const MIN_BLOCK_ROWS = 64;
/** Below this many rows a JavaScript scan is fast enough and needs no WebAssembly memory. */
const KERNEL_MIN_ROWS = 512;
const PAGE_BYTES = 65_536;

/** The rows of a `VectorSlab`, by slot (see the module doc for the layout). */
export class SlabBlocks {
  readonly dimensions: number;
  /** One Float32Array per block (views of the WebAssembly memory once it is used). */
  #blocks: Float32Array[] = [];
  /** The capacity of the last block; every other block holds BLOCK_ROWS. */
  #lastCap = 0;
  #memory: WebAssembly.Memory | null = null;
  #kernel: ColumnKernel | null = null;
  /** False once WebAssembly memory could not be had: scans stay in JavaScript. */
  #wasm = true;
  /** Scores of the last scan, by slot; reused by the next. */
  #scores = new Float32Array(0);

  /** The blocks as {@linkcode forEachRun} walks them. */
  readonly #shape: SlabShape = {
    dimensions: 0,
    cap: (b) => this.#capOf(b),
  };

  constructor(dimensions: number) {
    this.dimensions = dimensions;
    this.#shape.dimensions = dimensions;
  }

  /** Copies of the rows at the consecutive slots from `first`: views of one new array. */
  readRows(first: number, count: number): Float32Array[] {
    const dims = this.dimensions;
    const all = new Float32Array(count * dims);
    forEachRun(this.#shape, { first, count }, ({ at, i, n, b }) => {
      const block = this.#blocks[b];
      const from = at.offset;
      for (let k = 0, o = i * dims + at.column; k < n; k++, o += dims) all[o] = block[from + k];
    });
    return Array.from({ length: count }, (_, r) => all.subarray(r * dims, (r + 1) * dims));
  }

  /**
   * The dot product of `unit` with each of the first `count` rows, by slot, in a scratch array
   * that the next scan reuses.
   */
  score(unit: Float32Array, count: number): Float32Array {
    if (this.#scores.length < count) this.#scores = new Float32Array(this.capacity());
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
  capacity(): number {
    return this.#blocks.length === 0 ? 0 : (this.#blocks.length - 1) * BLOCK_ROWS + this.#lastCap;
  }

  /** Writes a row (zeros for null) at a slot within the capacity. */
  writeRow(slot: number, unit: Float32Array | null): void {
    this.writeRows(slot, [unit ?? new Float32Array(this.dimensions)]);
  }

  /**
   * Writes rows at the consecutive slots from `first` (within the capacity), a column of up to
   * `RUN_ROWS` rows at a time: a row at a time strides over every column (a cache line
   * and a page per value), most of loading or bulk-writing a slab's time (issue 25).
   */
  writeRows(first: number, units: readonly Float32Array[]): void {
    forEachRun(this.#shape, { first, count: units.length }, ({ at, i, n, b }) => {
      const block = this.#blocks[b];
      const { offset, column } = at;
      for (let k = 0; k < n; k++) block[offset + k] = units[i + k][column];
    });
  }

  /** Writes sparse rows at the consecutive slots from `first` (within the capacity, zeros). */
  writeSparse(first: number, { counts, indices, values }: SparseRows): void {
    for (let i = 0, k = 0; i < counts.length; i++) {
      const slot = first + i, cap = this.#capOf(slot >>> BLOCK_SHIFT), r = slot & (BLOCK_ROWS - 1);
      const block = this.#blocks[slot >>> BLOCK_SHIFT];
      for (const end = k + counts[i]; k < end; k++) block[indices[k] * cap + r] = values[k];
    }
  }

  /**
   * Makes room for row `slot` (the next row; none when it has room): a new block, or a larger last block, at once large
   * enough for the rows up to `last` in the same block (a bulk write's; not a doubling each).
   */
  reserve(slot: number, last = slot): void {
    const b = slot >>> BLOCK_SHIFT;
    const want = (last >>> BLOCK_SHIFT) > b ? BLOCK_ROWS : (last & (BLOCK_ROWS - 1)) + 1;
    if (b < this.#blocks.length && (slot & (BLOCK_ROWS - 1)) < this.#capOf(b)) return;
    let cap = b === this.#blocks.length ? MIN_BLOCK_ROWS : this.#lastCap * 2;
    while (cap < want) cap *= 2;
    this.#place(b, cap);
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
