/**
 * @module One agent's memories as columns (record, id, last access in game minutes, importance,
 * kind) in append order, updated in place, for exhaustive scans without per-query parsing.
 */
import {
  type ComponentBounds,
  gameMinutesFast,
  isLive,
  type MemoryKind,
  type MemoryRecord,
} from "../../src/domain/mod.ts";
import type { MemoryInclusion, ScannedMemories } from "../../src/ports/mod.ts";

/** A row's flag: the memory left the live set (archived or merged). */
const OUT = 1;
/** A row's flag: the memory was superseded. */
const SUPERSEDED = 2;

function flagsOf(record: MemoryRecord): number {
  return (isLive(record) ? 0 : OUT) | (record.supersededBy === undefined ? 0 : SUPERSEDED);
}

const INITIAL_CAPACITY = 64;

/**
 * Columns of one agent's memories. Row `i` is the `i`-th memory appended (or loaded); rows are
 * only ever appended, so a row index names the same memory for the life of these columns and
 * `ids` is an append-only array (the vector slab caches its id-to-slot mapping by it).
 */
export class MemoryColumns {
  readonly #ids: string[] = [];
  readonly #records: MemoryRecord[] = [];
  #accessed = new Float64Array(INITIAL_CAPACITY);
  #importance = new Float64Array(INITIAL_CAPACITY);
  #kinds = new Uint16Array(INITIAL_CAPACITY);
  #flags = new Uint8Array(INITIAL_CAPACITY);
  /** How many rows have a flag: none, and an unfiltered scan lends views. */
  #flagged = 0;
  /** Kind names to small codes, in order of first appearance. */
  readonly #kindCodes = new Map<string, number>();

  /** The id of each row: an append-only array, the same one for the life of these columns. */
  get ids(): readonly string[] {
    return this.#ids;
  }

  /** How many rows. */
  get size(): number {
    return this.#ids.length;
  }

  /** Appends a row; returns its index. */
  push(record: MemoryRecord): number {
    const row = this.#ids.length;
    if (row === this.#accessed.length) this.#grow(row * 2);
    this.#ids.push(record.id);
    this.#records.push(record);
    let code = this.#kindCodes.get(record.kind);
    if (code === undefined) this.#kindCodes.set(record.kind, code = this.#kindCodes.size);
    this.#kinds[row] = code;
    this.#flags[row] = 0;
    this.update(row, record);
    return row;
  }

  /** Replaces a row's record (same id and kind) after its mutable fields changed. */
  update(row: number, record: MemoryRecord): void {
    const flags = flagsOf(record);
    this.#flagged += (flags === 0 ? 0 : 1) - (this.#flags[row] === 0 ? 0 : 1);
    this.#flags[row] = flags;
    this.#records[row] = record;
    this.#accessed[row] = gameMinutesFast(record.lastAccessedAt);
    this.#importance[row] = record.importance;
  }

  /**
   * The rows (of `kinds`, when given; live and not superseded unless `include` lets them in)
   * with their cosines, `cosines[i]` being row `i`'s for every row. When every row is wanted,
   * views of these columns: valid until the next write. Otherwise compact copies.
   */
  view(
    cosines: Float32Array,
    { kinds, include }: { kinds?: readonly MemoryKind[]; include?: MemoryInclusion },
  ): Omit<ScannedMemories, "withoutVector"> {
    const count = this.#ids.length;
    const allowed = (include?.archived ? OUT : 0) | (include?.superseded ? SUPERSEDED : 0);
    if (kinds === undefined && (this.#flagged === 0 || allowed === (OUT | SUPERSEDED))) {
      return {
        records: this.#records,
        cosines: cosines.subarray(0, count),
        accessedMinutes: this.#accessed.subarray(0, count),
        importance: this.#importance.subarray(0, count),
      };
    }
    const wanted = new Uint8Array(this.#kindCodes.size).fill(kinds === undefined ? 1 : 0);
    for (const kind of kinds ?? []) {
      const code = this.#kindCodes.get(kind);
      if (code !== undefined) wanted[code] = 1;
    }
    const refused = ~allowed & (OUT | SUPERSEDED);
    const kept = (row: number) => wanted[this.#kinds[row]] === 1;
    const take = (row: number) => kept(row) && (this.#flags[row] & refused) === 0;
    let n = 0;
    for (let row = 0; row < count; row++) if (take(row)) n++;
    const records = new Array<MemoryRecord>(n);
    const out = {
      records,
      cosines: new Float32Array(n),
      accessedMinutes: new Float64Array(n),
      importance: new Float64Array(n),
    };
    for (let row = 0, i = 0; row < count; row++) {
      if (!take(row)) continue;
      records[i] = this.#records[row];
      out.cosines[i] = cosines[row];
      out.accessedMinutes[i] = this.#accessed[row];
      out.importance[i] = this.#importance[row];
      i++;
    }
    return this.#flagged === 0 ? out : { ...out, bounds: this.#bounds(cosines, kept) };
  }

  /**
   * The ranges a filtered scan normalises over, as ranking from candidates takes them: cosines
   * over every memory (of the kinds kept), recency and importance over the live ones. Undefined
   * when none is live.
   */
  #bounds(cosines: Float32Array, kept: (row: number) => boolean): ComponentBounds | undefined {
    const cos = [Infinity, -Infinity], acc = [Infinity, -Infinity], imp = [Infinity, -Infinity];
    for (let row = 0; row < this.#ids.length; row++) {
      if (!kept(row)) continue;
      const c = Number.isFinite(cosines[row]) ? cosines[row] : 0;
      cos[0] = Math.min(cos[0], c);
      cos[1] = Math.max(cos[1], c);
      if ((this.#flags[row] & OUT) !== 0) continue;
      acc[0] = Math.min(acc[0], this.#accessed[row]);
      acc[1] = Math.max(acc[1], this.#accessed[row]);
      imp[0] = Math.min(imp[0], this.#importance[row]);
      imp[1] = Math.max(imp[1], this.#importance[row]);
    }
    if (acc[0] === Infinity) return undefined;
    return {
      cosine: [cos[0], cos[1]],
      accessedMinutes: [acc[0], acc[1]],
      importance: [imp[0], imp[1]],
    };
  }

  #grow(capacity: number): void {
    const accessed = new Float64Array(capacity);
    accessed.set(this.#accessed);
    this.#accessed = accessed;
    const importance = new Float64Array(capacity);
    importance.set(this.#importance);
    this.#importance = importance;
    const kinds = new Uint16Array(capacity);
    kinds.set(this.#kinds);
    this.#kinds = kinds;
    const flags = new Uint8Array(capacity);
    flags.set(this.#flags);
    this.#flags = flags;
  }
}
