/**
 * @module Private to lib/kv: packs, the embedded index's layout for vectors written in bulk.
 *
 * Deno KV's commits cost per key more than per byte: 20,000 vectors of 384 float32 values take
 * ~0.55 s as 20,000 keys and ~0.14 s as 60 KB values of ~38 vectors each (BENCHMARKS.md, issue
 * 25, "World export and import"). So a large upsert (an import's batch) writes packs:
 * `["vec", worldId, agentId, n]` (a number, where a single vector's key has its memory id) →
 * `[u32 header bytes][header: JSON array of ids, padded to 4 bytes][rows, little-endian]`: the
 * float32 rows, or (bit 31 of the u32 set) only their non-zero values when that is smaller
 * (`_pack_rows.ts`; packs written before sparse rows are dense and load as they are).
 *
 * Which version of a vector is current: a load reads the packs in order, then the single keys,
 * each replacing what came before, so a newer pack (higher n) replaces an older pack's row and a
 * single key replaces any pack's. A pack's row replaced elsewhere stays in it,
 * stale and harmless, until the pack is rewritten; a delete rewrites every pack holding the id.
 */
import { SimulacraError } from "../../src/domain/mod.ts";
import { deleteKey, type KvWrite, LIMITS, listAll, setBytes, utf8Length } from "./_kv_support.ts";
import { decodeRows, encodeRows, nonZeros, rowBytes, sparseRows } from "./_pack_rows.ts";
import { fromBytes, storedDimensions } from "./_unit_vectors.ts";
import { VectorSlab } from "./_vector_slab.ts";

/** Vectors an upsert must have to be written as packs. */
export const PACK_MIN = 64;

/** Packs need this many rows each to be worth it (large dimensions get single keys). */
const ROWS_MIN = 4;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One pack's content: ids and their unit vectors, aligned. */
export interface Pack {
  ids: string[];
  rows: Float32Array[];
  /** Each row's count of non-zero values, when known (counted again when not). */
  nonZero?: number[];
  /** Each row's positions of its non-zero values, when known (searched for when not). */
  at?: (Uint16Array | undefined)[];
}

/**
 * The ids and rows of `entries` (with each row's positions of non-zero values when known), grouped
 * into packs of at most LIMITS.partBytes; null when too few fit.
 */
export function packsOf(
  entries: readonly { id: string; unit: Float32Array; at?: Uint16Array }[],
  dimensions: number,
): Pack[] | null {
  if (dimensions * 4 * ROWS_MIN > LIMITS.partBytes / 2) return null;
  const packs: Pack[] = [];
  let pack: Required<Pack> = { ids: [], rows: [], nonZero: [], at: [] };
  let header = 8, nonZero = 0;
  for (const { id, unit, at } of entries) {
    const more = utf8Length(id) * 2 + 4; // JSON may escape
    const nz = at?.length ?? nonZeros(unit);
    const rows = rowBytes(pack.ids.length + 1, { dimensions, nonZero: nonZero + nz });
    if (
      pack.ids.length > 0 && header + more + Math.min(rows.dense, rows.sparse) > LIMITS.partBytes
    ) {
      packs.push(pack);
      pack = { ids: [], rows: [], nonZero: [], at: [] };
      header = 8, nonZero = 0;
    }
    pack.ids.push(id);
    pack.rows.push(unit);
    pack.nonZero.push(nz);
    pack.at.push(at);
    header += more, nonZero += nz;
  }
  if (pack.ids.length > 0) packs.push(pack);
  return packs;
}

/** Bit 31 of a pack's header length: its rows are sparse (`_pack_rows.ts`). */
const SPARSE = 0x8000_0000;

/** A pack's stored bytes. */
export function encodePack({ ids, rows, nonZero, at }: Pack, dimensions: number): Uint8Array {
  const header = encoder.encode(JSON.stringify(ids));
  const padded = Math.ceil(header.length / 4) * 4;
  const body = encodeRows(rows, { dimensions, counts: nonZero, at });
  const bytes = new Uint8Array(4 + padded + body.bytes.length);
  const flags = body.sparse ? SPARSE : 0;
  new DataView(bytes.buffer).setUint32(0, (header.length | flags) >>> 0, true);
  bytes.set(header, 4);
  bytes.set(body.bytes, 4 + padded);
  return bytes;
}

/** A pack's ids and its rows' bytes (4-byte aligned), or null when the header is not one. */
function packParts(
  stored: Uint8Array,
): { ids: string[]; body: Uint8Array; sparse: boolean } | null {
  const bytes = stored.byteOffset % 4 === 0 ? stored : stored.slice();
  if (bytes.length < 4) return null;
  const word = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true);
  const headerBytes = word & ~SPARSE;
  const padded = Math.ceil(headerBytes / 4) * 4;
  let ids: unknown;
  try {
    ids = JSON.parse(decoder.decode(bytes.subarray(4, 4 + headerBytes)));
  } catch {
    return null;
  }
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string")) return null;
  return { ids, body: bytes.subarray(4 + padded), sparse: (word & SPARSE) !== 0 };
}

/**
 * Where an agent's loaded vectors live in KV: which packs hold a row of each id (current or
 * stale), and the next pack's number.
 */
export class PackBook {
  /** The packs holding a row of each id, oldest first. */
  readonly #holders = new Map<string, number[]>();
  /** Each pack's ids. */
  readonly #contents = new Map<number, string[]>();
  #next = 0;

  /** The number a new pack takes (higher than any stored). */
  get next(): number {
    return this.#next;
  }

  /** Notes a pack stored (loaded or just written). */
  add(n: number, ids: readonly string[]): void {
    this.#contents.set(n, [...ids]);
    for (const id of ids) {
      const held = this.#holders.get(id) ?? [];
      held.push(n);
      this.#holders.set(id, held);
    }
    this.#next = Math.max(this.#next, n + 1);
  }

  /** Notes a pack rewritten without `gone` (removed when none are left). */
  remove(n: number, gone: ReadonlySet<string>): void {
    const kept = (this.#contents.get(n) ?? []).filter((id) => !gone.has(id));
    for (const id of gone) {
      const held = (this.#holders.get(id) ?? []).filter((p) => p !== n);
      if (held.length > 0) this.#holders.set(id, held);
      else this.#holders.delete(id);
    }
    if (kept.length > 0) this.#contents.set(n, kept);
    else this.#contents.delete(n);
  }

  /** The packs holding a row of any of `ids`, with the ids each would keep without them. */
  holding(ids: Iterable<string>): Map<number, { kept: string[]; gone: Set<string> }> {
    const out = new Map<number, { kept: string[]; gone: Set<string> }>();
    for (const id of ids) {
      for (const n of this.#holders.get(id) ?? []) {
        const pack = out.get(n) ?? { kept: [], gone: new Set<string>() };
        pack.gone.add(id);
        out.set(n, pack);
      }
    }
    for (const [n, pack] of out) {
      pack.kept = this.#contents.get(n)!.filter((id) => !pack.gone.has(id));
    }
    return out;
  }
}

/** A planned KV write and what it changes in a loaded agent once committed. */
export type Mirrored = KvWrite & { mirror: (loaded: LoadedVectors) => void };

/**
 * The writes of new packs, numbered after `loaded`'s; then the removal of the single keys of ids
 * stored before (which would still win over a pack), and the older packs' rows of them.
 */
export function packWrites(
  loaded: LoadedVectors,
  packs: readonly Pack[],
  { key, dimensions }: { key: (name: string | number) => Deno.KvKey; dimensions: number },
): Mirrored[] {
  const writes: Mirrored[] = packs.map((pack, i) => {
    const n = loaded.book.next + i;
    return {
      ...setBytes(key(n), encodePack(pack, dimensions)),
      mirror: ({ slab, book }) => {
        slab.setMany(pack.ids, pack.rows);
        book.add(n, pack.ids);
      },
    };
  });
  const ids = new Set(packs.flatMap((pack) => pack.ids));
  for (const id of ids) {
    if (loaded.slab.has(id)) writes.push({ ...deleteKey(key(id)), mirror: () => {} });
  }
  // After the new packs: until then, the old rows are the current ones.
  return [...writes, ...packsWithout(loaded, ids, { key, dimensions })];
}

/**
 * The writes of the packs of `loaded` (none when not loaded: then the agent has no packs) that
 * hold a row of a `gone` id, each without them (deleted when nothing is left): a delete's, and a
 * bulk upsert's, so replaced rows do not pile up in packs nobody rewrites.
 */
export function packsWithout(
  loaded: LoadedVectors | undefined,
  gone: ReadonlySet<string>,
  { key, dimensions }: { key: (name: string | number) => Deno.KvKey; dimensions: number },
): Mirrored[] {
  if (loaded === undefined) return [];
  return [...loaded.book.holding(gone)].map(([n, { kept, gone: dropped }]) => ({
    ...(kept.length === 0 ? deleteKey(key(n)) : setBytes(
      key(n),
      encodePack({ ids: kept, rows: kept.map((id) => loaded.slab.get(id)!) }, dimensions),
    )),
    mirror: ({ book }) => book.remove(n, dropped),
  }));
}

/** An agent's loaded vectors: the slab scanned by queries and where its rows live in KV. */
export interface LoadedVectors {
  slab: VectorSlab;
  book: PackBook;
}

/**
 * Reads an agent's vectors under `prefix` (`["vec", worldId, agentId]`): packs in order, then
 * single keys, each replacing what came before it (see the module doc; KV lists strings first).
 *
 * @throws {SimulacraError} `config_error` when they have other dimensions than `dimensions`.
 */
export async function loadVectors(
  kv: Deno.Kv,
  { prefix, agentId }: { prefix: Deno.KvKey; agentId: string },
  dimensions: number,
): Promise<LoadedVectors> {
  const slab = new VectorSlab(dimensions);
  const book = new PackBook();
  const wrong = (found: string) =>
    new SimulacraError(
      "config_error",
      `Cannot load the vectors of agent "${agentId}": they have ${found}, not ${dimensions}: configure the embedder they were made with`,
    );
  const entries = await listAll<Uint8Array>(kv, { prefix });
  const packs = entries.filter((entry) => typeof entry.key[prefix.length] === "number");
  const parts = packs.map((entry) => packParts(entry.value));
  // Room for every pack's rows at once, each block growing once (a pack's rows at a time grew
  // each ~log2(4096 / 64) times, copying its columns); sparse rows go into the slab as they are
  // stored, with no dense row made (issue 25, 2e).
  slab.reserve(parts.reduce((sum, part) => sum + (part?.ids.length ?? 0), 0));
  packs.forEach((entry, p) => {
    const part = parts[p];
    if (part === null) throw wrong("another number of dimensions");
    const shape = { count: part.ids.length, dimensions };
    const rows = part.sparse
      ? sparseRows(part.body, shape)
      : decodeRows(part.body, { ...shape, sparse: false });
    if (rows === null) throw wrong("another number of dimensions");
    if (Array.isArray(rows)) slab.setMany(part.ids, rows);
    else slab.setSparse(part.ids, rows);
    book.add(entry.key[prefix.length] as number, part.ids);
  });
  for (const entry of entries) {
    const id = entry.key[prefix.length];
    if (typeof id !== "string") continue;
    const stored = storedDimensions(entry.value);
    if (stored !== dimensions) throw wrong(`${stored} dimensions`);
    slab.set(id, fromBytes(entry.value));
  }
  return { slab, book };
}
