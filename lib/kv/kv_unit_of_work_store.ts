/**
 * @module The embedded UnitOfWorkStore: `begin` reads the leases, documents and claim in one KV
 * read, then takes the leases and decodes the rest with the KV lock, document and idempotency
 * stores; `commit` is one atomic operation checked
 * against every document head, every fence, every released lease and the claim it read; the
 * claim's counter is a `Deno.KvU64` summed in that operation (unchecked: a tick's steps commit at
 * once) and read right after it.
 */
import { ConflictError, LeaseLostError } from "../../src/domain/mod.ts";
import {
  assertOneWritePerDocument,
  type BeginRequest,
  type Begun,
  claimTaken,
  type CommitRequest,
  type Committed,
  type IdempotencyStore,
  type UnitOfWorkStore,
  versionConflict,
} from "../../src/ports/mod.ts";
import { type BlobHead, blobWrites } from "./_kv_blob.ts";
import { addWrites, assertKeySize, decodeJson, encodeJson, getAll, guard } from "./_kv_support.ts";
import { headKey, type KvDocumentStore, partPrefix } from "./kv_document_store.ts";
import * as idem from "./kv_idempotency_store.ts";
import { markerKey, packedText } from "./_claim_packs.ts";
import { heldCheck, type KvLock, leaseKey, lockKey } from "./kv_lock.ts";

/** What a commit writes, encoded once for all its tries. */
interface Planned {
  request: CommitRequest;
  encoded: Uint8Array[];
  claimed: Parameters<typeof idem.addValueWrites>[1] | undefined;
  counter: Deno.KvKey | null;
}

/** Rounds of read-then-commit while a lease or document keeps being touched meanwhile. */
const ATTEMPTS = 8;

/** Claim scopes whose pack marker a commit remembers as last read (most recent last). */
const REMEMBERED_MARKERS = 1_024;

/** Units of work on Deno KV. */
export class KvUnitOfWorkStore implements UnitOfWorkStore {
  readonly #kv: Deno.Kv;
  readonly #documents: KvDocumentStore;
  readonly #locks: KvLock;
  readonly #idempotency: IdempotencyStore;
  /** Pack markers of scopes that have packs, as last read: a commit checks them unread. */
  readonly #markers = new Map<string, Deno.KvEntryMaybe<unknown>>();

  constructor(
    options: {
      kv: Deno.Kv;
      documents: KvDocumentStore;
      locks: KvLock;
      idempotency: IdempotencyStore;
    },
  ) {
    this.#kv = options.kv;
    this.#documents = options.documents;
    this.#locks = options.locks;
    this.#idempotency = options.idempotency;
  }

  /**
   * The leases' entries, the document heads and the claim's head in one read of KV (ten keys to
   * a `getMany`, all at once): a step's begin is one read and one lease write, not three reads
   * and a write (issue 25: each KV call is a round trip through KV's SQLite thread).
   */
  async begin(request: BeginRequest): Promise<Begun> {
    const { leases, documents, claim } = request;
    // A claim's key and its scope's pack marker (a value put in bulk is packed: see _claim_packs.ts).
    const claimKey = claim ? [idem.headKey(claim.scope, claim.key), markerKey(claim.scope)] : [];
    for (const lease of leases) assertKeySize(lockKey(lease), "lock key");
    for (const key of documents) assertKeySize(headKey(key), "document key");
    if (claimKey.length > 0) assertKeySize(claimKey[0], "idempotency key");
    const read = await guard(
      "read documents",
      () => getAll(this.#kv, [...leases.map(lockKey), ...documents.map(headKey), ...claimKey]),
    );
    const heads = read.slice(leases.length, leases.length + documents.length);
    const [taken, docs, claimed] = await Promise.all([
      this.#locks.acquireRead(leases, read.slice(0, leases.length)),
      this.#documents.fromHeads(documents, heads),
      claim ? this.#claimed(claim, { head: read.at(-2)!, marker: read.at(-1)! }) : null,
    ]);
    return { leases: taken, documents: docs, claimed };
  }

  /**
   * The value stored under a claim key, from its head and its scope's pack marker as read (its
   * parts read when it has any; a packed value read from the packs).
   */
  async #claimed(
    claim: { scope: string; key: string },
    entry: { head: Deno.KvEntryMaybe<unknown>; marker: Deno.KvEntryMaybe<unknown> },
  ) {
    const head = entry.head.value as BlobHead | Deno.KvU64 | null;
    if (head === null) {
      const packed = await packedText(this.#kv, claim, entry.marker);
      return packed === undefined ? null : JSON.parse(packed);
    }
    // A count the unit of work keeps (`CommitRequest.claim.counter`), as the store reads it.
    if (head instanceof Deno.KvU64) return Number(head.value);
    if (head.data !== undefined) return decodeJson(head.data);
    return await this.#idempotency.get(claim.scope, claim.key);
  }

  async commit(request: CommitRequest): Promise<Committed> {
    const { documents, fences, release, claim } = request;
    if (documents.length === 0 && release.length === 0 && !claim) return { count: null };
    assertOneWritePerDocument(documents);
    const encoded = documents.map((w) => encodeJson(w.value ?? null));
    const claimed = claim && {
      scope: claim.scope,
      key: claim.key,
      gen: 1,
      bytes: encodeJson(claim.value ?? null),
      previous: null,
    };
    const claimKey = claim ? [idem.headKey(claim.scope, claim.key), markerKey(claim.scope)] : [];
    const counter = claim?.counter === undefined ? null : idem.headKey(claim.scope, claim.counter);
    const keys = [
      ...fences.map(leaseKey),
      ...claimKey,
      ...documents.map((w) => headKey(w.key)),
      ...release.map(leaseKey),
    ];
    const planned = { request, encoded, claimed, counter };
    return await guard("commit work", async () => {
      // First against the leases and heads as this process last wrote or read them, without
      // reading them again (issue 25: a KV call less per step); the checks fail if anyone
      // wrote one since, and the commit then reads them as below.
      const known = this.#known(request);
      const fast = known && !await this.#packedClaim(request, known) &&
        this.#plan(planned, known, () => null);
      if (fast) {
        const committed = await fast.op.commit();
        if (committed.ok) return await this.#done(planned, { ...fast, committed });
      }
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        // Every key this commit checks, read at once: leases, claim, document heads.
        const read = await getAll(this.#kv, keys);
        if (await this.#packedClaim(request, read)) throw claimTaken(request.claim!);
        const plan = this.#plan(planned, read, (error) => {
          throw error;
        })!;
        const committed = await plan.op.commit();
        if (committed.ok) return await this.#done(planned, { ...plan, committed });
        // A lease was renewed or a document written between our reads and the commit: again.
      }
      throw new ConflictError("Cannot commit work: its leases and documents kept changing");
    });
  }

  /**
   * Whether the commit's claim is taken by a packed value, from its scope's marker in `read`
   * (fences, claim, marker, …); a scope's marker is remembered for the next commit's checks.
   */
  async #packedClaim(request: CommitRequest, read: Deno.KvEntryMaybe<unknown>[]) {
    const { claim, fences } = request;
    if (!claim) return false;
    const marker = read[fences.length + 1];
    this.#markers.delete(claim.scope);
    if (marker.versionstamp !== null) {
      this.#markers.set(claim.scope, marker);
      if (this.#markers.size > REMEMBERED_MARKERS) {
        this.#markers.delete(this.#markers.keys().next().value!);
      }
    }
    return await packedText(this.#kv, claim, marker) !== undefined;
  }

  /**
   * The entries a commit checks, as this process last wrote or read them, in the order the
   * commit reads them (fences, claim, heads, released leases); null when one is not known.
   */
  #known(request: CommitRequest): Deno.KvEntryMaybe<unknown>[] | null {
    const { documents, fences, release, claim } = request;
    const leases = [...fences, ...release].map((lease) => this.#locks.knownEntry(lease));
    const heads = documents.map((w) => this.#documents.knownHead(w.key));
    if (leases.some((e) => e === null) || heads.some((e) => e === null)) return null;
    const claimEntry = claim
      ? [
        { key: idem.headKey(claim.scope, claim.key), value: null, versionstamp: null },
        this.#markers.get(claim.scope) ??
          { key: markerKey(claim.scope), value: null, versionstamp: null },
      ]
      : [];
    return [
      ...leases.slice(0, fences.length),
      ...claimEntry,
      ...heads,
      ...leases.slice(fences.length),
    ] as Deno.KvEntryMaybe<unknown>[];
  }

  /**
   * The commit's atomic operation checked against `read` (fences, claim, heads, released
   * leases, in that order); what they forbid goes to `refuse` (null: no operation).
   */
  #plan(
    { request, encoded, claimed, counter }: Planned,
    read: Deno.KvEntryMaybe<unknown>[],
    refuse: (error: Error) => null,
  ): { op: Deno.AtomicOperation; written: BlobHead[] } | null {
    const { documents, fences, release, claim } = request;
    const op = this.#kv.atomic();
    const written: BlobHead[] = [];
    const fenceEntries = read.slice(0, fences.length);
    const claimEntry = read[fences.length];
    const claimKeys = claim ? 2 : 0;
    const heads = read.slice(fences.length + claimKeys, -release.length || undefined);
    const releaseEntries = read.slice(read.length - release.length);
    for (const [i, fence] of fences.entries()) {
      const check = heldCheck(fenceEntries[i], fence);
      if (check === null) return refuse(new LeaseLostError(fence.key));
      op.check(check);
    }
    if (claim && claimed) {
      if (claimEntry.versionstamp !== null) return refuse(claimTaken(claim));
      // The marker checked as read: packs written since may hold the claim.
      const marker = read[fences.length + 1];
      idem.addValueWrites(
        op.check({ key: claimEntry.key, versionstamp: null }).check(marker),
        claimed,
        claim,
      );
    }
    for (const [i, write] of documents.entries()) {
      const head = heads[i] as Deno.KvEntryMaybe<BlobHead>;
      if ((head.value?.gen ?? 0) !== write.expectedVersion) {
        return refuse(versionConflict(write.key));
      }
      op.check(head);
      const { head: next, writes } = blobWrites(partPrefix(write.key), encoded[i], {
        gen: write.expectedVersion + 1,
        previous: head.value,
        what: "document",
      });
      addWrites(op, writes).set(headKey(write.key), next);
      written.push(next);
    }
    release.forEach((lease, i) => {
      const check = heldCheck(releaseEntries[i], lease);
      if (check !== null) op.check(check).delete(check.key);
    });
    if (counter) op.sum(counter, 1n);
    return { op, written };
  }

  /** After a commit: the heads it wrote and the leases it released noted, the count read. */
  async #done(
    { request, counter }: Planned,
    { written, committed }: { written: BlobHead[]; committed: Deno.KvCommitResult },
  ): Promise<Committed> {
    const { versionstamp } = committed;
    request.documents.forEach((w, i) =>
      this.#documents.noteHead(w.key, { value: written[i], versionstamp })
    );
    for (const lease of request.release) this.#locks.forget(lease);
    return { count: counter && await this.#countAfter(counter, committed) };
  }

  /** The counter as the commit left it, or null when a later commit changed it already. */
  async #countAfter(counter: Deno.KvKey, commit: Deno.KvCommitResult): Promise<number | null> {
    const entry = await this.#kv.get<Deno.KvU64>(counter);
    return entry.versionstamp === commit.versionstamp ? Number(entry.value!.value) : null;
  }
}
