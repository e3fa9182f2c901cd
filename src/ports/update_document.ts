/**
 * @module The one read-modify-write loop over documents: read, compute the next value, write it
 * by compare-and-set, and on a lost race read again. Every document update in `src/` goes
 * through it, so contention always ends the same way: a `ConflictError`.
 */
import { ConflictError, LeaseLostError } from "../domain/mod.ts";
import type { DocumentKey, DocumentStore, Versioned } from "./document_store.ts";
import type { Lease } from "./lock.ts";

/** What {@linkcode updateDocument} does: the change, and how hard it tries. */
export interface UpdateDocumentOptions<T> {
  /**
   * Gets the current value (null when there is none) and returns the next one, or `undefined`
   * to leave the document as it is; it may throw to stop.
   */
  change: (current: T | null) => T | undefined;
  /** Reads and writes before giving up. @default 5 */
  attempts?: number;
  /** Create the document when it does not exist. @default true */
  create?: boolean;
  /** A version already read: the first attempt uses it instead of reading again. */
  read?: Versioned<T> | null;
  /** The message of the `ConflictError` thrown when writes keep losing. */
  conflict?: string;
  /**
   * A lease the write needs: a replace or create commits only while it is held, else
   * `LeaseLostError` (a fenced write, see `lock.ts`).
   */
  fence?: Lease;
}

/**
 * Applies `options.change` to the document at `key` with compare-and-set, retrying lost races
 * on a fresh read. A missing document is created unless `create` is false (then `change(null)`
 * should throw or return `undefined`). The store and the address first, then one object, as the
 * storage ports take theirs (see `DocumentStore`).
 * @returns the value stored now: the one written, or the current one when `change` kept it.
 * @throws `conflict` when concurrent writes keep winning; whatever `change` or the store throws.
 */
export async function updateDocument<T>(
  store: Pick<DocumentStore, "get" | "create" | "replace">,
  key: DocumentKey,
  options: UpdateDocumentOptions<T>,
): Promise<T | null> {
  const attempts = options.attempts ?? 5;
  let read = options.read;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const current = read !== undefined ? read : await store.get<T>(key);
    read = undefined;
    const next = options.change(current?.value ?? null);
    if (next === undefined) return current?.value ?? null;
    if (current) {
      const replaced = await store.replace(key, next, {
        expectedVersion: current.version,
        fence: options.fence,
      });
      if (replaced) return next;
      continue;
    }
    if (options.create === false) continue;
    try {
      await store.create(key, next, { fence: options.fence });
      return next;
    } catch (err) {
      // Created meanwhile: read it again (a lost lease is no race to retry).
      if (!(err instanceof ConflictError) || err instanceof LeaseLostError) throw err;
    }
  }
  throw new ConflictError(
    options.conflict ?? `Cannot update "${key.id}": other writes kept changing it, retry shortly`,
  );
}
