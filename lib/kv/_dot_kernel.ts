/**
 * @module A WebAssembly SIMD kernel that adds weighted float32 columns into one accumulator.
 *
 * The vector slab stores vectors column-major in blocks (`_vector_slab.ts`), so scoring a block
 * against a query is `acc += q_j · column_j` for each dimension `j` where the query is not zero:
 * sparse queries (the local embedder's, ~10–60 non-zeros of 384) read only their columns, and
 * dense ones read every column, always sequentially. This f32x4 loop does about four times the
 * work per instruction of a JavaScript loop. The module is assembled here from its
 * instructions (no binary blob, no toolchain):
 * `columns1(base, acc, rowBytes, list, count)` runs, for each of `count` 8-byte list entries
 * `(offset: i32, weight: f32)`, `acc[r] = acc[r] + column[r] · weight` over `rowBytes / 4` floats,
 * where `column` starts at byte `base + offset`. Every product and sum is rounded to float32
 * (no fused multiply-add), so a JavaScript loop that rounds the same way gives identical bits.
 * `columns4` does the same four columns per pass, summing in the same order with a quarter of
 * the accumulator traffic. `rowBytes` must be a positive multiple of 64 and every address
 * 16-byte aligned.
 */

/** Adds `count` weighted columns into `acc`; all addresses are byte offsets of the memory. */
export type AddColumns = (
  base: number,
  acc: number,
  rowBytes: number,
  list: number,
  count: number,
) => void;

/** Floats per loop step (4 × f32x4); a block's row count must be a multiple of this. */
export const KERNEL_STEP = 16;

/** Columns `columns4` adds per pass over the accumulator. */
export const COLUMNS_PER_PASS = 4;

/** The kernel's two entry points; both take the same arguments. */
export interface ColumnKernel {
  /** Adds `count` columns one per pass. */
  columns1: AddColumns;
  /** Adds `count` columns four per pass (`count` must be a multiple of 4): fewer accumulator loads. */
  columns4: AddColumns;
}

function leb128(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** Signed LEB128, the encoding of `i32.const` immediates. */
function sleb128(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

function section(id: number, body: number[]): number[] {
  return [id, ...leb128(body.length), ...body];
}

function name(text: string): number[] {
  return [text.length, ...[...text].map((c) => c.charCodeAt(0))];
}

/**
 * The body of a function that adds `width` columns per pass over the accumulator: one load and
 * store of each accumulator vector per `width` columns, the sums still taken in list order.
 */
function columnsBody(width: number): number[] {
  const i32 = 0x7f, v128 = 0x7b;
  const get = (i: number) => [0x20, i];
  const set = (i: number) => [0x21, i];
  const i32Const = (n: number) => [0x41, ...sleb128(n)];
  const v128Load = (offset: number) => [0xfd, 0x00, 0x04, ...leb128(offset)]; // align 2^4
  const v128Store = (offset: number) => [0xfd, 0x0b, 0x04, ...leb128(offset)];
  const i32Load = (offset: number) => [0x28, 0x02, ...leb128(offset)];
  const f32Load = (offset: number) => [0x2a, 0x02, ...leb128(offset)];
  const f32x4Splat = [0xfd, 0x13];
  const f32x4Add = [0xfd, 0xe4, 0x01];
  const f32x4Mul = [0xfd, 0xe6, 0x01];
  const [i32Add, i32Shl, i32GeU, i32LtU] = [0x6a, 0x74, 0x4f, 0x49];
  const [loop, br, brIf, end, empty] = [0x03, 0x0c, 0x0d, 0x0b, 0x40];
  // Params 0 base, 1 acc, 2 rowBytes, 3 list (advanced as the cursor), 4 count (entries,
  // a multiple of `width`); locals 5 listEnd, 6 acc pointer, 7 accEnd, then `width` column
  // pointers (i32) and `width` weight splats (v128).
  const [listEnd, p, accEnd] = [5, 6, 7];
  const column = (k: number) => 8 + k;
  const weight = (k: number) => 8 + width + k;
  const step = (offset: number) => {
    const out = [...get(p), ...get(p), ...v128Load(offset)];
    for (let k = 0; k < width; k++) {
      out.push(...get(column(k)), ...v128Load(offset), ...get(weight(k)), ...f32x4Mul, ...f32x4Add);
    }
    out.push(...v128Store(offset));
    return out;
  };
  const load = [];
  for (let k = 0; k < width; k++) {
    load.push(...get(0), ...get(3), ...i32Load(8 * k), i32Add, ...set(column(k)));
    load.push(...get(3), ...f32Load(8 * k + 4), ...f32x4Splat, ...set(weight(k)));
  }
  const advance = [];
  for (let k = 0; k < width; k++) {
    advance.push(...get(column(k)), ...i32Const(64), i32Add, ...set(column(k)));
  }
  return [
    2,
    3 + width,
    i32,
    width,
    v128, // local declarations
    ...get(3),
    ...get(4),
    ...i32Const(3),
    i32Shl,
    i32Add,
    ...set(listEnd), // listEnd = list + count * 8
    ...get(1),
    ...get(2),
    i32Add,
    ...set(accEnd), // accEnd = acc + rowBytes
    0x02,
    empty, // block
    loop,
    empty, // for each `width` list entries
    ...get(3),
    ...get(listEnd),
    i32GeU,
    brIf,
    1, // list >= listEnd → done
    ...load,
    ...get(1),
    ...set(p), // p = acc
    loop,
    empty, // for each 16 floats of the columns
    ...step(0),
    ...step(16),
    ...step(32),
    ...step(48),
    ...get(p),
    ...i32Const(64),
    i32Add,
    ...set(p),
    ...advance,
    ...get(p),
    ...get(accEnd),
    i32LtU,
    brIf,
    0,
    end,
    ...get(3),
    ...i32Const(8 * width),
    i32Add,
    ...set(3),
    br,
    0,
    end,
    end,
    end,
  ];
}

function assemble(): Uint8Array<ArrayBuffer> {
  const i32 = 0x7f;
  const code = (body: number[]) => [...leb128(body.length), ...body];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [1, 0x60, 5, i32, i32, i32, i32, i32, 0]), // type: (i32 ×5) → ()
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, 0x00]), // import memory
    ...section(3, [2, 0, 0]),
    ...section(7, [2, ...name("columns1"), 0x00, 0, ...name("columns4"), 0x00, 1]),
    ...section(10, [2, ...code(columnsBody(1)), ...code(columnsBody(COLUMNS_PER_PASS))]),
  ]);
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled kernel module, or null where WebAssembly SIMD is unavailable. */
function kernelModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    const bytes = assemble();
    compiled = typeof WebAssembly === "object" && WebAssembly.validate(bytes)
      ? new WebAssembly.Module(bytes)
      : null;
  }
  return compiled;
}

/**
 * Instantiates the kernel over `memory`. Returns null where WebAssembly SIMD is unavailable,
 * so the caller falls back to a JavaScript loop.
 */
export function instantiateKernel(memory: WebAssembly.Memory): ColumnKernel | null {
  const module = kernelModule();
  if (module === null) return null;
  const { exports } = new WebAssembly.Instance(module, { env: { memory } });
  return { columns1: exports.columns1 as AddColumns, columns4: exports.columns4 as AddColumns };
}
