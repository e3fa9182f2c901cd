/**
 * @module Private to lib/kv: the vector slab's blocks walked a run of rows at a time, for bulk
 * reads and writes of rows (see `_slab_blocks.ts` for the layout).
 */

/** Rows per full block: its accumulator (16 KiB of float32 scores) stays in L1. */
export const BLOCK_ROWS = 4096;
export const BLOCK_SHIFT = 12;

/** Rows a run holds at most: a run's column is a few cache lines. */
const RUN_ROWS = 64;

/** The blocks of a slab: how many dimensions, and each block's capacity. */
export interface SlabShape {
  dimensions: number;
  cap: (b: number) => number;
}

/** Where {@linkcode forEachRun} is: a run's column, and the run. */
export interface Run {
  /** `offset`: the run's first value of column `column` in the block. */
  at: { column: number; offset: number };
  /** The run's first row, counted from the walk's `first`. */
  i: number;
  /** The run's length. */
  n: number;
  /** The run's block. */
  b: number;
}

/**
 * Calls `fn` for every column of each run of up to {@linkcode RUN_ROWS} consecutive slots from
 * `first` within one block (`run.b`): a row at a time strides over every column (a cache line and a page
 * per value), which was most of loading or bulk-writing a slab (issue 25).
 */
export function forEachRun(
  shape: SlabShape,
  { first, count }: { first: number; count: number },
  fn: (run: Run) => void,
): void {
  const at = { column: 0, offset: 0 };
  for (let i = 0; i < count;) {
    const slot = first + i;
    const b = slot >>> BLOCK_SHIFT;
    const cap = shape.cap(b);
    const r = slot & (BLOCK_ROWS - 1);
    const run = { at, i, n: Math.min(count - i, cap - r, RUN_ROWS), b };
    for (at.column = 0; at.column < shape.dimensions; at.column++) {
      at.offset = at.column * cap + r;
      fn(run);
    }
    i += run.n;
  }
}

/** Bytes of the kernel's list: one (i32 offset, f32 weight) entry per dimension, 64-aligned. */
export function listBytes(dimensions: number): number {
  return Math.ceil((dimensions * 8) / 64) * 64;
}

/** Bytes before the first block in WebAssembly memory: the list, then one block's scores. */
export function headerBytes(dimensions: number): number {
  return listBytes(dimensions) + BLOCK_ROWS * 4;
}

/** Bytes of a block of `cap` rows. */
export function blockBytes(dimensions: number, cap: number): number {
  return dimensions * cap * 4;
}
