/**
 * @module Runs a piece of work (an agent's step) in two storage round trips plus what it cannot
 * know up front: its leases are taken and the documents it needs read together
 * (`UnitOfWorkStore.begin`); the work then reads documents from that snapshot and its document
 * writes are held back; at its end one atomic commit checks the versions it read and that its
 * leases are still held, writes everything and releases the leases. The work gets the leases it
 * holds (to fence the writes that go to the store at once, e.g. memories); it must not take
 * them again. They are renewed only when the work runs longer than a third of their TTL.
 */
import type {
  ClaimKey,
  CommitRequest,
  Committed,
  Deps,
  DocumentKey,
  KeepOptions,
  Lease,
  Storage,
  Versioned,
} from "../../ports/mod.ts";
import { ConflictError, LeaseLostError } from "../../domain/mod.ts";
import { WorkDocuments } from "./_work_documents.ts";
import { type DeclaredRead, WorkReads } from "./_work_reads.ts";
import { acquireWithin, keepRenewed, type LeaseOptions } from "./lease.ts";

/** A lease the work holds throughout: its key and how to take it. */
export interface WorkLease extends LeaseOptions {
  key: string;
}

/** What a unit of work needs up front. */
export interface WorkNeeds {
  leases: readonly WorkLease[];
  /** Documents read with the leases; others are read when first asked for. */
  documents: readonly DocumentKey[];
  /**
   * Leases the caller holds already (and renews and releases itself): the commit checks them
   * too, and writes fenced by them wait for it.
   */
  held?: readonly Lease[];
  /**
   * An idempotency key read with the leases, which the work may claim in its commit; with
   * `counter`, a key of its scope counting the claims (see `CommitRequest.claim`).
   */
  claim?: ClaimKey & KeepOptions & { counter?: string };
  /**
   * Reads the work will make, started with the leases (in their round trip when the store can
   * order them after the leases, else once the leases are taken; again after a wait for a
   * lease), so they are made under the leases; the work's first matching call gets each.
   */
  reads?: readonly DeclaredRead[];
  /**
   * Documents whose writes are changes to re-apply, not versions to defend: when the commit
   * conflicts only because one of them changed meanwhile (e.g. an agent document a PATCH
   * changed during a perceive that holds the agent's lease), the fields the work changed are
   * laid over the fresh version and the commit tried again, a few times, as a read-modify-write
   * retry would.
   */
  rebase?: readonly DocumentKey[];
}

export type { DeclaredRead };

/** Commits tried on a conflict with {@linkcode WorkNeeds.rebase} documents. */
const REBASE_ATTEMPTS = 3;

/** What work run in a unit of work gets: the unit's storage and the leases it holds. */
export interface WorkUnit {
  storage: Storage;
  /** The leases taken for `needs.leases`, in that order. */
  leases: readonly Lease[];
}

/** The work's view of its idempotency key (see {@linkcode WorkNeeds.claim}). */
export interface WorkClaim {
  /** The value stored under the key when the work began (null when none). */
  readonly stored: unknown;
  /** Stores `value` under the key in the commit, first write wins (else the commit conflicts). */
  set(value: unknown): void;
  /** Once the work committed its claim: the counter's new value (else null). */
  readonly count: number | null;
}

/**
 * Runs `work` with a storage whose documents and locks belong to the unit of work (every other
 * store writes through at once), then commits. Writes made before `work` threw are committed
 * too, as they would have been written without the unit of work; the error is rethrown after.
 *
 * @throws what a lease's `busy` returns when it stays busy; `conflict` when a document written
 * changed since it was read, or `LeaseLostError` when a lease was lost (nothing written then);
 * what `work` throws; `store_unavailable`.
 */
export async function withUnitOfWork<T>(
  deps: Pick<Deps, "storage" | "sleep">,
  needs: WorkNeeds,
  work: (unit: WorkUnit, claim: WorkClaim) => Promise<T>,
): Promise<T> {
  const base = deps.storage;
  const { leases, snapshot, claimed, reads } = await begin(deps, needs);
  const claiming: { value?: unknown; set?: true } = {};
  const claim = {
    stored: claimed,
    set: (value: unknown) => Object.assign(claiming, { value, set: true }),
    count: null as number | null,
  };
  const stop = new AbortController();
  const lost = new AbortController();
  const renewing = Promise.all(
    leases.map((lease, i) =>
      keepRenewed(deps, lease, { ttlMs: needs.leases[i].ttlMs, stop: stop.signal, lost })
    ),
  );
  const fences = [...leases, ...needs.held ?? []];
  const own = (lease: Lease) => fences.some((l) => l.key === lease.key && l.token === lease.token);
  const documents = new WorkDocuments(base.documents, own);
  needs.documents.forEach((key, i) => documents.seed(key, snapshot[i]));
  const storage: Storage = {
    ...storageParts(base),
    documents,
    idempotency: reads.idempotency(base.idempotency),
    memories: reads.memories(base.memories),
  };
  let outcome: { value: T } | { error: unknown };
  try {
    outcome = { value: await work({ storage, leases }, claim) };
  } catch (error) {
    outcome = { error };
  }
  stop.abort("done"); // a reason of our own: a default one builds a DOMException (1% of a tick)
  await renewing;
  try {
    if (lost.signal.aborted) throw lost.signal.reason;
    const committed = await commitRebasing(base, documents, {
      fences,
      release: leases,
      claim: needs.claim && claiming.set ? { ...needs.claim, value: claiming.value } : undefined,
      rebase: needs.rebase ?? [],
    });
    claim.count = committed.count;
  } catch (error) {
    await Promise.all(leases.map((lease) => base.locks.release(lease).catch(() => false)));
    throw "error" in outcome ? outcome.error : error;
  }
  if ("error" in outcome) throw outcome.error;
  return outcome.value;
}

/** Commits the unit's writes; on a conflict the rebase documents explain, again over fresh versions. */
async function commitRebasing(
  base: Storage,
  documents: WorkDocuments,
  request: Omit<CommitRequest, "documents"> & { rebase: readonly DocumentKey[] },
): Promise<Committed> {
  const { rebase, ...rest } = request;
  for (let attempt = 1;; attempt++) {
    try {
      return await base.units.commit({ ...rest, documents: documents.writes() });
    } catch (error) {
      const retry = error instanceof ConflictError && !(error instanceof LeaseLostError) &&
        attempt < REBASE_ATTEMPTS && rebase.length > 0 && await documents.rebase(rebase);
      if (!retry) throw error;
    }
  }
}

/** Every store of `base` as it is (methods bound), to override some of them. */
function storageParts(base: Storage): Storage {
  return {
    kind: base.kind,
    documents: base.documents,
    memories: base.memories,
    vectors: base.vectors,
    locks: base.locks,
    events: base.events,
    idempotency: base.idempotency,
    usage: base.usage,
    rateLimits: base.rateLimits,
    audit: base.audit,
    units: base.units,
    memoryScan: base.memoryScan,
    memoryWriter: base.memoryWriter,
    ping: () => base.ping(),
    close: () => base.close(),
  };
}

/**
 * Takes the leases and reads the documents in one round trip; a lease someone else holds is
 * then waited for, and the documents read again after the wait.
 */
async function begin(deps: Pick<Deps, "storage" | "sleep">, needs: WorkNeeds): Promise<Begun> {
  const units = deps.storage.units;
  const request = { leases: needs.leases, documents: needs.documents, claim: needs.claim };
  const beginning = units.begin(request);
  let reads = units.readsFollowBegin ? new WorkReads(deps.storage, needs.reads ?? []) : undefined;
  const begun = await beginning;
  const leases: Lease[] = [];
  try {
    for (const [i, lease] of begun.leases.entries()) {
      leases.push(lease ?? await acquireWithin(deps, needs.leases[i].key, needs.leases[i]));
    }
  } catch (error) {
    await Promise.all(leases.map((lease) => deps.storage.locks.release(lease).catch(() => false)));
    throw error;
  }
  if (begun.leases.every((lease) => lease !== null)) {
    reads ??= new WorkReads(deps.storage, needs.reads ?? []);
    return { leases, snapshot: begun.documents, claimed: begun.claimed, reads };
  }
  // Read before a lease was ours: read again, under it.
  const rereading = units.begin({ ...request, leases: [] });
  reads = new WorkReads(deps.storage, needs.reads ?? []);
  const reread = await rereading;
  return { leases, snapshot: reread.documents, claimed: reread.claimed, reads };
}

interface Begun {
  leases: Lease[];
  snapshot: (Versioned<unknown> | null)[];
  claimed: unknown;
  reads: WorkReads;
}
