/** @module A small per-world cache of model answers kept in one document, oldest entries dropped first. */
import type { Deps, DocumentKey } from "../../ports/mod.ts";
import { putDocument } from "../world/mod.ts";

/** Entries in insertion order (`keys`) and their values. */
export interface BoundedCache<T> {
  keys: string[];
  values: Record<string, T>;
}

/** A cache read from its document, to extend with {@linkcode remember} and {@linkcode saveCache}. */
export interface LoadedCache<T> {
  key: DocumentKey;
  cache: BoundedCache<T>;
  version: number | undefined;
  changed: boolean;
}

/** Reads the cache document (empty when there is none). */
export async function loadCache<T>(
  deps: Pick<Deps, "storage">,
  key: DocumentKey,
): Promise<LoadedCache<T>> {
  const doc = await deps.storage.documents.get<BoundedCache<T>>(key);
  return {
    key,
    cache: doc?.value ?? { keys: [], values: {} },
    version: doc?.version,
    changed: false,
  };
}

/** The cached value of `entry`, or undefined. */
export function cached<T>(loaded: LoadedCache<T>, entry: string): T | undefined {
  return Object.hasOwn(loaded.cache.values, entry) ? loaded.cache.values[entry] : undefined;
}

/** The cache with `answers` (entry, value) remembered in order, the oldest beyond `max` dropped. */
export function remember<T>(
  loaded: LoadedCache<T>,
  answers: Iterable<readonly [entry: string, value: T]>,
  max: number,
): LoadedCache<T> {
  const keys = [...loaded.cache.keys];
  const values = { ...loaded.cache.values };
  let changed = loaded.changed;
  for (const [entry, value] of answers) {
    if (!Object.hasOwn(values, entry)) keys.push(entry);
    values[entry] = value;
    changed = true;
  }
  for (const old of keys.splice(0, Math.max(0, keys.length - max))) delete values[old];
  return { ...loaded, cache: { keys, values }, changed };
}

/** Writes the cache back when it changed (only the running tick writes it). */
export async function saveCache<T>(
  deps: Pick<Deps, "storage">,
  loaded: LoadedCache<T>,
): Promise<void> {
  if (loaded.changed) {
    await putDocument(deps, loaded.key, { value: loaded.cache, version: loaded.version });
  }
}
