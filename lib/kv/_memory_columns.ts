/**
 * @module One agent's memories as columns (record, id, last access in game minutes, importance,
 * kind) in append order, updated in place, for exhaustive scans without per-query parsing.
 */
import { gameMinutesFast, type MemoryKind, type MemoryRecord } from "../../src/domain/mod.ts";
import type { ScannedMemories } from "../../src/ports/mod.ts";

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
    this.update(row, record);
    return row;
  }

  /** Replaces a row's record (same id and kind) after its mutable fields changed. */
  update(row: number, record: MemoryRecord): void {
    this.#records[row] = record;
    this.#accessed[row] = gameMinutesFast(record.lastAccessedAt);
    this.#importance[row] = record.importance;
  }

  /**
   * The rows (of `kinds`, when given) with their cosines, `cosines[i]` being row `i`'s for
   * every row. Without `kinds`, views of these columns: valid until the next write. With
   * `kinds`, compact copies.
   */
  view(
    cosines: Float32Array,
    kinds: readonly MemoryKind[] | undefined,
  ): Omit<ScannedMemories, "withoutVector"> {
    const count = this.#ids.length;
    if (kinds === undefined) {
      return {
        records: this.#records,
        cosines: cosines.subarray(0, count),
        accessedMinutes: this.#accessed.subarray(0, count),
        importance: this.#importance.subarray(0, count),
      };
    }
    const wanted = new Uint8Array(this.#kindCodes.size);
    for (const kind of kinds) {
      const code = this.#kindCodes.get(kind);
      if (code !== undefined) wanted[code] = 1;
    }
    let n = 0;
    for (let row = 0; row < count; row++) n += wanted[this.#kinds[row]];
    const records = new Array<MemoryRecord>(n);
    const out = {
      records,
      cosines: new Float32Array(n),
      accessedMinutes: new Float64Array(n),
      importance: new Float64Array(n),
    };
    for (let row = 0, i = 0; row < count; row++) {
      if (wanted[this.#kinds[row]] === 0) continue;
      records[i] = this.#records[row];
      out.cosines[i] = cosines[row];
      out.accessedMinutes[i] = this.#accessed[row];
      out.importance[i] = this.#importance[row];
      i++;
    }
    return out;
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
  }
}
