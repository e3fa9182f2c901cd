/**
 * @module The embedded UnitOfWorkStore: `begin` takes the leases and reads the documents with
 * the KV lock, document and idempotency stores; `commit` is one atomic operation checked
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
import { addWrites, encodeJson, getAll, guard } from "./_kv_support.ts";
import { headKey, type KvDocumentStore, partPrefix } from "./kv_document_store.ts";
import * as idem from "./kv_idempotency_store.ts";
import { markerKey, packedText } from "./_claim_packs.ts";
import { heldCheck, type KvLock, leaseKey } from "./kv_lock.ts";

/** Rounds of read-then-commit while a lease or document keeps being touched meanwhile. */
const ATTEMPTS = 8;

/** Units of work on Deno KV. */
export class KvUnitOfWorkStore implements UnitOfWorkStore {
  readonly #kv: Deno.Kv;
  readonly #documents: KvDocumentStore;
  readonly #locks: KvLock;
  readonly #idempotency: IdempotencyStore;

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

  async begin(request: BeginRequest): Promise<Begun> {
    const { claim } = request;
    const [leases, documents, claimed] = await Promise.all([
      this.#locks.acquireMany(request.leases),
      this.#documents.getMany(request.documents),
      claim ? this.#idempotency.get(claim.scope, claim.key) : null,
    ]);
    return { leases, documents, claimed };
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
    return await guard("commit work", async () => {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const op = this.#kv.atomic();
        // Every key this commit checks, read at once: leases, claim, document heads.
        // A claim's key and its scope's pack marker (a packed value counts as claimed).
        const claimKey = claim
          ? [idem.headKey(claim.scope, claim.key), markerKey(claim.scope)]
          : [];
        const read = await getAll(this.#kv, [
          ...fences.map(leaseKey),
          ...claimKey,
          ...documents.map((w) => headKey(w.key)),
          ...release.map(leaseKey),
        ]);
        const fenceEntries = read.slice(0, fences.length);
        const claimEntry = read[fences.length];
        const heads = read.slice(fences.length + claimKey.length, -release.length || undefined);
        const releaseEntries = read.slice(read.length - release.length);
        fences.forEach((fence, i) => {
          const check = heldCheck(fenceEntries[i], fence);
          if (check === null) throw new LeaseLostError(fence.key);
          op.check(check);
        });
        if (claim && claimed) {
          const marker = read[fences.length + 1];
          if (claimEntry.versionstamp !== null) throw claimTaken(claim);
          if (await packedText(this.#kv, claim, marker) !== undefined) throw claimTaken(claim);
          idem.addValueWrites(
            op.check({ key: claimEntry.key, versionstamp: null }).check(marker),
            claimed,
            claim,
          );
        }
        documents.forEach((write, i) => {
          const head = heads[i] as Deno.KvEntryMaybe<BlobHead>;
          if ((head.value?.gen ?? 0) !== write.expectedVersion) throw versionConflict(write.key);
          op.check(head);
          const version = write.expectedVersion + 1;
          const { head: next, writes } = blobWrites(partPrefix(write.key), encoded[i], {
            gen: version,
            previous: head.value,
            what: "document",
          });
          addWrites(op, writes).set(headKey(write.key), next);
        });
        release.forEach((lease, i) => {
          const check = heldCheck(releaseEntries[i], lease);
          if (check !== null) op.check(check).delete(check.key);
        });
        const counter = claim?.counter === undefined
          ? null
          : idem.headKey(claim.scope, claim.counter);
        if (counter) op.sum(counter, 1n);
        const committed = await op.commit();
        if (committed.ok) return { count: counter && await this.#countAfter(counter, committed) };
        // A lease was renewed or a document written between our reads and the commit: again.
      }
      throw new ConflictError("Cannot commit work: its leases and documents kept changing");
    });
  }

  /** The counter as the commit left it, or null when a later commit changed it already. */
  async #countAfter(counter: Deno.KvKey, commit: Deno.KvCommitResult): Promise<number | null> {
    const entry = await this.#kv.get<Deno.KvU64>(counter);
    return entry.versionstamp === commit.versionstamp ? Number(entry.value!.value) : null;
  }
}
