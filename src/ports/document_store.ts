/**
 * @module Port: small JSON documents (worlds, agents, settings) with versioned compare-and-set,
 * and the read and write over it that its users share.
 */
import { ConflictError } from "../domain/mod.ts";
import type { FencedWrite } from "./lock.ts";

/** Where a document lives: a collection, a scope within it (e.g. a world id, or "" for global), and an id. */
export interface DocumentKey {
  collection: string;
  scope: string;
  id: string;
}

/** A document with its version; versions start at 1 and grow by one per write. */
export interface Versioned<T> {
  id: string;
  value: T;
  version: number;
}

/** What a {@linkcode DocumentStore.replace} needs besides the key and the value. */
export interface ReplaceOptions extends FencedWrite {
  /** The version the caller read: the replace writes only while it is still the stored one. */
  expectedVersion: number;
}

/**
 * Versioned JSON documents. The world clock's compare-and-set is a `replace` with the version
 * that was read. Throws `store_unavailable` when the backend fails.
 *
 * Signatures of the storage ports: a method takes the address it acts on first, as its reader
 * takes it (`get(key)`, `get(scope, key)`, `spend(subject, period)`), then the value when that
 * leaves room, and last one object with the rest (the value when it does not fit, the version
 * expected, the fence, the time to live): at most three parameters.
 */
export interface DocumentStore {
  /** The document, or null. */
  get<T>(key: DocumentKey): Promise<Versioned<T> | null>;

  /** Every document of a collection within a scope, ordered by id. */
  list<T>(collection: string, scope: string): Promise<Versioned<T>[]>;

  /**
   * Creates a document at version 1. Throws `conflict` when it exists. With `options.fence`,
   * creates only while that lease is held, or throws `LeaseLostError` and writes nothing.
   */
  create<T>(key: DocumentKey, value: T, options?: FencedWrite): Promise<Versioned<T>>;

  /**
   * Replaces a document only if its stored version is `options.expectedVersion` (atomic).
   * Returns the new version, or null when the document changed or does not exist (nothing
   * written). With `options.fence`, writes only while that lease is held, or throws `conflict`
   * (`LeaseLostError`) and writes nothing.
   */
  replace<T>(key: DocumentKey, value: T, options: ReplaceOptions): Promise<Versioned<T> | null>;

  /** Deletes a document; returns whether it existed. */
  delete(key: DocumentKey): Promise<boolean>;

  /** Deletes every document of a collection within a scope; returns how many there were. */
  deleteAll(collection: string, scope: string): Promise<number>;
}

/**
 * The document at `key` with its version; throws what `missing` makes when there is none (the
 * error that names the thing, e.g. `agent_not_found`).
 */
export async function requireDocument<T>(
  documents: DocumentStore,
  key: DocumentKey,
  missing: () => Error,
): Promise<Versioned<T>> {
  const doc = await documents.get<T>(key);
  if (!doc) throw missing();
  return doc;
}

/**
 * Writes `value` over the version read earlier: creates the document when `version` is
 * undefined (there was none), else replaces that version. False, writing nothing, when another
 * write got there first.
 * @throws `store_unavailable`
 */
export async function writeOverRead<T>(
  documents: DocumentStore,
  key: DocumentKey,
  { value, version }: { value: T; version: number | undefined },
): Promise<boolean> {
  if (version !== undefined) {
    return await documents.replace(key, value, { expectedVersion: version }) !== null;
  }
  try {
    await documents.create(key, value);
    return true;
  } catch (err) {
    if (err instanceof ConflictError) return false;
    throw err;
  }
}
