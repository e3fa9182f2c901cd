/**
 * @module Port: a unit of work in two round trips. `begin` takes leases and reads documents
 * together; `commit` writes every document a piece of work changed at once, checked against the
 * versions it read and against its leases, and releases the leases in the same step. A hosted
 * backend answers each with one request, so work that reads and writes a dozen documents costs
 * two instead of two dozen.
 */
import { ConflictError, SimulacraError } from "../domain/mod.ts";
import type { DocumentKey, Versioned } from "./document_store.ts";
import type { KeepOptions } from "./idempotency_store.ts";
import type { Lease } from "./lock.ts";

/** A lease to take in {@linkcode UnitOfWorkStore.begin}. */
export interface LeaseRequest {
  key: string;
  ttlMs: number;
}

/** What {@linkcode UnitOfWorkStore.begin} does in one round trip. */
export interface BeginRequest {
  /** Leases to take, each only if free (or expired), as `Lock.acquire` does. */
  leases: readonly LeaseRequest[];
  /** Documents to read. */
  documents: readonly DocumentKey[];
  /** An idempotency key (as `IdempotencyStore` keeps them) whose stored value to read too. */
  claim?: ClaimKey;
}

/** An idempotency key: a key within a scope. */
export interface ClaimKey {
  scope: string;
  key: string;
}

/** The leases taken (null where someone else holds one) and the documents read, in order. */
export interface Begun {
  leases: (Lease | null)[];
  documents: (Versioned<unknown> | null)[];
  /** The value stored under the request's claim key (null when none is, or none was asked). */
  claimed: unknown;
}

/** One document write of a commit. */
export interface DocumentWrite {
  key: DocumentKey;
  value: unknown;
  /** The version the write replaces; 0 creates the document, which must not exist. */
  expectedVersion: number;
}

/** What {@linkcode UnitOfWorkStore.commit} does atomically. */
export interface CommitRequest {
  /** Writes, at most one per key; each document gets version `expectedVersion + 1`. */
  documents: readonly DocumentWrite[];
  /** Leases that must all be held (same token, not expired) for anything to be written. */
  fences: readonly Lease[];
  /** Leases released after the writes, in the same atomic step (those no longer held are skipped). */
  release: readonly Lease[];
  /** An idempotency key to store `value` under, first write wins, with the documents. */
  claim?: ClaimKey & KeepOptions & {
    value: unknown;
    /**
     * A key of the claim's scope counting the claims made with it: incremented by one when the
     * claim is written (in the same atomic step); the commit returns its value after that. It
     * reads as a number through `IdempotencyStore.get`. It lives at least as long as the claim
     * (`ttlMs`) from its first count, or until its scope is cleared.
     */
    counter?: string;
  };
}

/** What {@linkcode UnitOfWorkStore.commit} answers. */
export interface Committed {
  /**
   * The claim's counter as this commit left it. Null without a counter, or when a commit made at
   * the same time changed it before it was read (the embedded store reads it after the commit);
   * the last commit to count always reads it, so one commit sees each value, the total included.
   */
  count: number | null;
}

/**
 * Begins and commits units of work. Throws `store_unavailable` when the backend fails; a failed
 * commit has written and released nothing.
 */
export interface UnitOfWorkStore {
  /** Takes the leases and reads the documents (the reads may happen before the leases are taken). */
  begin(request: BeginRequest): Promise<Begun>;

  /**
   * True when reads of the other stores started in the same turn as `begin`, after it, reach
   * the backend after its leases are taken (in its pipelined request): they can then start with
   * it and still be read under the leases. Otherwise they wait for `begin`.
   */
  readonly readsFollowBegin?: boolean;

  /**
   * Writes every document and releases the leases, all or nothing: throws `LeaseLostError` when
   * a fence is not held, and `ConflictError` when a document's stored version is not its
   * `expectedVersion` (a create finds it existing) or the claim's key holds a value already,
   * writing and releasing nothing.
   */
  commit(request: CommitRequest): Promise<Committed>;
}

/** @throws `invalid_request` when two writes of a commit name the same document. */
export function assertOneWritePerDocument(writes: readonly DocumentWrite[]): void {
  const keys = new Set(
    writes.map((w) => JSON.stringify([w.key.collection, w.key.scope, w.key.id])),
  );
  if (keys.size < writes.length) {
    throw new SimulacraError("invalid_request", "Cannot commit two writes of one document");
  }
}

/** The error of a commit whose document changed since it was read (or exists, for a create). */
export function versionConflict(key: DocumentKey): ConflictError {
  return new ConflictError(
    `Cannot save document "${key.id}" of "${key.collection}": it changed since it was read, retry shortly`,
  );
}

/** The error of a commit whose claim's key holds a value already. */
export function claimTaken(claim: ClaimKey): ConflictError {
  return new ConflictError(`Cannot claim "${claim.key}": it is claimed already`);
}
