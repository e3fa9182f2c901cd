/**
 * @module The embedded memory store's transactions: writes spread over as many atomic operations
 * as KV's limits need, committed by moving the head; the claims an append checks; and loading an
 * agent, which drops what uncommitted writes left (see `kv_memory_store.ts` for the layout).
 *
 * ## Why all-or-nothing holds beyond one atomic operation
 * A KV atomic operation carries at most 1000 mutations and ~800 KiB, so 500 memories of 2,000
 * characters (~1.2 MB) need several. Every write is therefore a small transaction: its keys are
 * written first, in as many atomic operations as needed, where no reader looks; then one final
 * atomic operation (checked against the head's versionstamp) moves the head. Records with
 * `seq > head.seq` and overlays with `txn > head.txn` are invisible: they belong to a write that
 * never committed. Loading an agent deletes such records and rolls such overlays back to `prev`,
 * so a crash or a KV failure mid-write leaves nothing visible and nothing that a later write
 * could expose. Almost every write fits one atomic operation and is a single commit.
 */
import { type AgentScope, ConflictError } from "../../src/domain/mod.ts";
import { type AppendOptions, claimTaken, type Lease } from "../../src/ports/mod.ts";
import { type BlobHead, readBlob } from "./_kv_blob.ts";
import * as idem from "./kv_idempotency_store.ts";
import { markerKey, packedText } from "./_claim_packs.ts";
import {
  addWrites,
  deleteKey,
  encodeJson,
  type KvWrite,
  listAll,
  planBatches,
  setValue,
} from "./_kv_support.ts";
import { loadRecords } from "./_record_packs.ts";
import { leaseCheck } from "./kv_lock.ts";
import {
  AgentState,
  type Head,
  type Overlay,
  prefixOf,
  type StoredOverlay,
} from "./_memory_state.ts";

/** Most claims the final atomic operation of an append checks (KV allows 100 checks). */
export const CLAIMS_IN_COMMIT = 64;

/** Room the final atomic operation keeps for the head write and its check, and for claims. */
const HEAD_RESERVE = { mutations: 1 + CLAIMS_IN_COMMIT, bytes: 200 + CLAIMS_IN_COMMIT * 300 };

/** One write of an agent's stream: its keys, and the head that commits them. */
export interface Transaction {
  writes: KvWrite[];
  head: Head;
  /** The lease the final atomic operation checks, when the write is fenced. */
  fence?: Lease;
  /** Adds the claims' checks and writes to the final atomic operation. */
  final?: () => Promise<(op: Deno.AtomicOperation) => void>;
}

/** The head every atomic operation of a transaction is checked against. */
interface HeadAt {
  key: Deno.KvKey;
  /** Its versionstamp when the agent was loaded (null when it has none yet). */
  stamp: string | null;
}

/**
 * Writes `writes` in as many atomic operations as KV's limits need, each checked against the
 * head's versionstamp `headStamp`, the last one also setting the head (and checking `fence`,
 * when given: earlier batches are invisible until then). Returns the head's new versionstamp,
 * which the caller records with `txn.head` in its cache. On failure the caller drops the
 * agent's cache, so the next call reloads (and cleans up) from KV.
 */
export async function commitWrites(
  kv: Deno.Kv,
  { scope, headStamp }: { scope: AgentScope; headStamp: string | null },
  txn: Transaction,
): Promise<string> {
  const at = { key: [...prefixOf(scope), "head"], stamp: headStamp };
  const batches = planBatches(txn.writes, HEAD_RESERVE);
  for (let i = 0; i < batches.length - 1; i++) {
    const result = await commitBatch(kv, at, { writes: batches[i], head: null });
    if (!result.ok) throw changedElsewhere();
  }
  const result = await commitBatch(kv, at, { ...txn, writes: batches[batches.length - 1] });
  if (!result.ok) throw changedElsewhere();
  return result.versionstamp;
}

/**
 * One atomic operation checked against the head; the final one (with a `head`) sets it and
 * checks the fence. A failed check caused only by the fence's holder renewing it is retried.
 */
async function commitBatch(
  kv: Deno.Kv,
  at: HeadAt,
  batch: Omit<Transaction, "head"> & { head: Head | null },
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  const { writes, head, fence, final } = batch;
  for (;;) {
    const fenceCheck = head !== null && fence ? await leaseCheck(kv, fence) : null;
    const finalOps = await final?.();
    const op = kv.atomic().check({ key: at.key, versionstamp: at.stamp });
    addWrites(op, writes);
    if (head !== null) op.set(at.key, head);
    if (fenceCheck !== null) op.check(fenceCheck);
    finalOps?.(op);
    const result = await op.commit();
    if (result.ok || (fenceCheck === null && finalOps === undefined)) return result;
    const current = await kv.get(at.key);
    if (current.versionstamp !== at.stamp) return result;
  }
}

/** Stores claims in atomic operations of their own (see `append`), fence checked first. */
export async function claimAhead(
  kv: Deno.Kv,
  claims: NonNullable<AppendOptions["claims"]>,
  fence: Lease | undefined,
): Promise<void> {
  if (fence) await leaseCheck(kv, fence);
  for (let i = 0; i < claims.length; i += CLAIMS_IN_COMMIT) {
    const chunk = claims.slice(i, i + CLAIMS_IN_COMMIT);
    for (;;) {
      const op = kv.atomic();
      (await claiming(kv, chunk))(op);
      if ((await op.commit()).ok) break;
    }
  }
}

/**
 * What the final atomic operation of an append checks and writes for its claims: a key that
 * holds nothing is set (checked still empty), one that holds the same value is checked
 * unchanged; the scopes' pack markers are checked unchanged (`_claim_packs.ts`: a packed value
 * counts as held). @throws {ConflictError} when a key holds another value.
 */
export async function claiming(
  kv: Deno.Kv,
  claims: NonNullable<AppendOptions["claims"]>,
): Promise<(op: Deno.AtomicOperation) => void> {
  // Every marker as a claim read it: two reads of one scope that saw different packs make the
  // operation fail its checks, and the append read them again.
  const markers = new Map<string, Deno.KvEntryMaybe<unknown>>();
  const steps = await Promise.all(claims.map(async (claim) => {
    const key = idem.headKey(claim.scope, claim.key);
    const bytes = encodeJson(claim.value ?? null);
    const [entry, marker] = await kv.getMany<[BlobHead, unknown]>([key, markerKey(claim.scope)]);
    markers.set(`${claim.scope}\n${marker.versionstamp}`, marker);
    const stored = entry.value === null
      ? await packedText(kv, claim, marker)
      : await readBlob(kv, idem.partPrefix(claim.scope, claim.key), entry.value);
    if (stored === undefined) {
      const write = { scope: claim.scope, key: claim.key, gen: 1, bytes, previous: null };
      return (op: Deno.AtomicOperation) =>
        void idem.addValueWrites(op.check({ key, versionstamp: null }), write);
    }
    const text = typeof stored === "string" ? stored : stored && decoder.decode(stored);
    if (text !== decoder.decode(bytes)) throw claimTaken(claim);
    return (op: Deno.AtomicOperation) => void op.check(entry);
  }));
  return (op) => {
    steps.forEach((step) => step(op));
    for (const marker of markers.values()) op.check(marker);
  };
}

const decoder = new TextDecoder();

/** Reads an agent from KV (call under its mutex), dropping what uncommitted writes left. */
export async function loadAgent(kv: Deno.Kv, scope: AgentScope): Promise<AgentState> {
  const prefix = prefixOf(scope);
  const headKey = [...prefix, "head"];
  const headEntry = await kv.get<Head>(headKey);
  const head = headEntry.value ?? { seq: 0, txn: 0 };
  const [loaded, stored] = await Promise.all([
    loadRecords(kv, { prefix, headSeq: head.seq }),
    listAll<StoredOverlay>(kv, { prefix: [...prefix, "ovl"] }),
  ]);

  const cleanup: KvWrite[] = loaded.cleanup;
  const overlays = new Map<number, Overlay>();
  for (const { key: ovlKey, value } of stored) {
    const seq = ovlKey[4] as number;
    if (seq > head.seq) {
      cleanup.push(deleteKey(ovlKey));
    } else if (value.txn <= head.txn) {
      overlays.set(seq, value.next);
    } else if (value.prev === null) {
      cleanup.push(deleteKey(ovlKey));
    } else {
      overlays.set(seq, value.prev);
      cleanup.push(setValue(ovlKey, { txn: head.txn, next: value.prev, prev: null }));
    }
  }
  const entries = overlays.size === 0
    ? loaded.entries
    : loaded.entries.map((e) => ({ ...e, overlay: overlays.get(e.seq) ?? null }));

  for (const batch of planBatches(cleanup)) {
    if (batch.length === 0) continue;
    const op = kv.atomic().check({ key: headKey, versionstamp: headEntry.versionstamp });
    if (!(await addWrites(op, batch).commit()).ok) throw changedElsewhere();
  }
  return new AgentState(head, headEntry.versionstamp, entries);
}

function changedElsewhere(): ConflictError {
  return new ConflictError(
    "Cannot write the memory stream: it changed outside this process; the embedded store allows one process per file",
  );
}
