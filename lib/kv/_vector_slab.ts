/**
 * @module One agent's unit vectors, scanned exactly: ids and their slots, the cosine reads and
 * the top-k search. The rows' storage (column-major blocks, WebAssembly memory, the scan
 * kernel) is in `_slab_blocks.ts`.
 */
import type { VectorMatch, VectorSearch } from "../../src/ports/mod.ts";
import { denseRows, type SparseRows } from "./_pack_rows.ts";
import { SlabBlocks } from "./_slab_blocks.ts";
import { clamp, selectTop } from "./_slab_select.ts";

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
  readonly #blocks: SlabBlocks;
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
    this.#blocks = new SlabBlocks(dimensions);
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
    return this.getMany([id])[0];
  }

  /** Copies of the stored vectors of `ids` (null where none), runs of consecutive slots at once. */
  getMany(ids: readonly string[]): (Float32Array | null)[] {
    const out = new Array<Float32Array | null>(ids.length).fill(null);
    for (let i = 0; i < ids.length;) {
      const slot = this.#slots.get(ids[i++]);
      if (slot === undefined) continue;
      let n = 1;
      while (this.#slots.get(ids[i - 1 + n]) === slot + n) n++;
      this.#blocks.readRows(slot, n).forEach((row, k) => out[i - 1 + k] = row);
      i += n - 1;
    }
    return out;
  }

  /** Stores or replaces a vector; `unit` must be unit-length with `dimensions` values. */
  set(id: string, unit: Float32Array): void {
    this.setMany([id], [unit]);
  }

  /**
   * Stores or replaces many vectors (as {@linkcode set} each, the last of an id given twice
   * winning): the new ones take consecutive slots, written a run of rows at a time.
   */
  setMany(ids: readonly string[], units: readonly Float32Array[]): void {
    const fresh: Float32Array[] = [];
    const replaced: number[] = [];
    const first = this.#ids.length;
    ids.forEach((id, i) => {
      if (this.#slots.has(id)) return void replaced.push(i);
      this.#slots.set(id, first + fresh.length);
      this.#ids.push(id);
      fresh.push(units[i]);
    });
    this.#version++;
    if (fresh.length > 0) {
      this.#reserve(first, first + fresh.length - 1);
      this.#added += fresh.length;
      this.#blocks.writeRows(first, fresh);
    }
    for (const i of replaced) this.#blocks.writeRow(this.#slots.get(ids[i])!, units[i]);
  }

  /**
   * Stores vectors given as sparse rows (`_pack_rows.ts`), as {@linkcode setMany} does: when all
   * are new, by their non-zero values alone (a slot past the last holds zeros), with no dense row
   * made (a load's packs: issue 25, 2e).
   */
  setSparse(ids: readonly string[], rows: SparseRows): void {
    if (ids.some((id) => this.#slots.has(id)) || new Set(ids).size !== ids.length) {
      return this.setMany(ids, denseRows(rows, this.dimensions));
    }
    const first = this.#ids.length;
    this.reserve(ids.length);
    ids.forEach((id, i) => {
      this.#slots.set(id, first + i);
      this.#ids.push(id);
    });
    this.#version++;
    this.#added += ids.length;
    this.#blocks.writeSparse(first, rows);
  }

  /** Makes room for `count` more vectors, each block growing once (a bulk write's, a load's). */
  reserve(count: number): void {
    this.#reserve(this.#ids.length, this.#ids.length + count - 1);
  }

  #reserve(first: number, last: number): void {
    for (let slot = first; slot <= last; slot++) this.#blocks.reserve(slot, last);
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
      this.#blocks.writeRow(slot, this.get(lastId)!);
      this.#ids[slot] = lastId;
      this.#slots.set(lastId, slot);
    }
    this.#blocks.writeRow(last, null);
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
    const matches = k > 0 ? selectTop(scores.subarray(0, count), k, this.#ids) : [];
    return { matches, lowest: clamp(lowest) };
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
    return this.#blocks.score(unit, this.#ids.length);
  }
}
