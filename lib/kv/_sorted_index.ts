/** @module An in-memory array kept sorted by (primary key, id), with binary-search insert and remove. */

/** A sort key: a primary value, then an id that breaks ties (ids are unique per index). */
export type SortKey = readonly [primary: string | number, id: string];

/** Compares two sort keys. */
export function compareKeys(a: SortKey, b: SortKey): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return 0;
}

/**
 * Items sorted ascending by `key(item)`. An item's key must not change while it is in the index:
 * remove it, change it, insert it again. Insert and remove are a binary search plus one splice.
 */
export class SortedIndex<T> {
  readonly #key: (item: T) => SortKey;
  #store: T[];
  /** Whether `#store` is sorted yet: an index built from unsorted items sorts on first use. */
  #sorted: boolean;

  /**
   * Builds the index from unsorted items, sorted when first used: loading an agent builds a
   * dozen indexes and an export reads one (issue 25, 2e). An item's key must not change before
   * then either; every change of one goes through {@linkcode remove}, which sorts first.
   */
  constructor(key: (item: T) => SortKey, items: readonly T[] = []) {
    this.#key = key;
    this.#store = items.slice();
    this.#sorted = items.length < 2;
  }

  get #items(): T[] {
    if (!this.#sorted) {
      const keyed = this.#store.map((item) => ({ item, key: this.#key(item) }));
      keyed.sort((a, b) => compareKeys(a.key, b.key));
      this.#store = keyed.map((k) => k.item);
      this.#sorted = true;
    }
    return this.#store;
  }

  /** How many items. */
  get size(): number {
    return this.#items.length;
  }

  /** The item at a position (0 is the lowest). */
  at(index: number): T {
    return this.#items[index];
  }

  /** The items from `start` to `end` (exclusive), lowest first. */
  slice(start?: number, end?: number): T[] {
    return this.#items.slice(start, end);
  }

  /** Inserts an item at its place. */
  insert(item: T): void {
    const key = this.#key(item);
    const items = this.#items;
    // Appends in key order are the common case (new memories are the newest).
    if (items.length === 0 || compareKeys(this.#key(items[items.length - 1]), key) < 0) {
      items.push(item);
      return;
    }
    items.splice(this.lowerBound(key), 0, item);
  }

  /**
   * Inserts many items at their places: sorted, then merged in one pass (a splice each made an
   * append of 500 memories to a stream of n move ~500·n items per index: quadratic for an
   * import, issue 25).
   */
  insertMany(items: readonly T[]): void {
    if (items.length < 8) {
      for (const item of items) this.insert(item);
      return;
    }
    const added = items.map((item) => ({ item, key: this.#key(item) }))
      .sort((a, b) => compareKeys(a.key, b.key));
    const old = this.#items;
    if (old.length === 0 || compareKeys(this.#key(old[old.length - 1]), added[0].key) < 0) {
      for (const { item } of added) old.push(item);
      return;
    }
    // Each new item's place by binary search from the previous one's: no key is built for the
    // items between them, only their references move.
    const merged: T[] = new Array(old.length + added.length);
    let from = 0, o = 0;
    for (const { item, key } of added) {
      let lo = from, hi = old.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compareKeys(this.#key(old[mid]), key) < 0) lo = mid + 1;
        else hi = mid;
      }
      while (from < lo) merged[o++] = old[from++];
      merged[o++] = item;
    }
    while (from < old.length) merged[o++] = old[from++];
    this.#store = merged; // made from the sorted `#items`
  }

  /** Removes an item; returns whether it was there. */
  remove(item: T): boolean {
    const index = this.lowerBound(this.#key(item));
    if (this.#items[index] !== item) return false;
    this.#items.splice(index, 1);
    return true;
  }

  /** The first position whose key is ≥ `key`. */
  lowerBound(key: SortKey): number {
    const items = this.#items;
    let lo = 0, hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(this.#key(items[mid]), key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first position whose key is > `key`. */
  upperBound(key: SortKey): number {
    const items = this.#items;
    let lo = 0, hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(this.#key(items[mid]), key) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
