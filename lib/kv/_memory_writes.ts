/**
 * @module Private to lib/kv: the transactions of the embedded memory store's writes: appends
 * (with their claims), overlay changes (touch, importance) and removals (see
 * `kv_memory_store.ts` for the design).
 */
import {
  type AgentScope,
  ConflictError,
  type MemoryRecord,
  type MemoryRevision,
  revised,
  SimulacraError,
} from "../../src/domain/mod.ts";
import type { AppendOptions } from "../../src/ports/mod.ts";
import { assertKeySize, deleteKey, type KvWrite, setValue } from "./_kv_support.ts";
import { claimAhead, claiming, CLAIMS_IN_COMMIT, type Transaction } from "./_memory_commit.ts";
import { recordRemovals, recordWrites } from "./_record_packs.ts";
import {
  type AgentState,
  type Entry,
  type EntryInit,
  type Overlay,
  overlayFor,
  prefixOf,
  type StoredOverlay,
} from "./_memory_state.ts";

/** An entry and the overlay it is to have. */
export interface OverlayChange {
  entry: Entry;
  overlay: Overlay;
}

/**
 * Checks an append's batch before the agent loads: every record in the scope, no id twice, and
 * keys within KV's size limit.
 *
 * @throws {SimulacraError} `invalid_request` when a record's `worldId`/`agentId` is not the scope's.
 * @throws {ConflictError} `conflict` when an id repeats in the batch.
 */
export function checkBatch(scope: AgentScope, memories: readonly MemoryRecord[]): void {
  const ids = new Set<string>();
  for (const memory of memories) {
    if (memory.worldId !== scope.worldId || memory.agentId !== scope.agentId) {
      throw new SimulacraError(
        "invalid_request",
        "Cannot append a memory to another agent's stream: set its worldId and agentId to the scope's",
      );
    }
    if (ids.has(memory.id)) {
      throw new ConflictError(`Cannot append memory "${memory.id}" twice in one batch`);
    }
    ids.add(memory.id);
    assertKeySize([...prefixOf(scope), "rec", 0, 0, memory.id], "world, agent or memory id");
  }
}

/**
 * The transaction that appends `memories` after the agent's last record, and the cache entries
 * to add once it commits. Many claims are stored ahead, before it.
 *
 * @throws {ConflictError} `conflict` when an id exists in the scope.
 */
export async function appendTransaction(
  kv: Deno.Kv,
  scope: AgentScope,
  { state, memories, options }: {
    state: AgentState;
    memories: readonly MemoryRecord[];
    options: AppendOptions;
  },
): Promise<{ txn: Transaction; entries: EntryInit[] }> {
  for (const memory of memories) {
    if (state.byId.has(memory.id)) {
      throw new ConflictError(
        `Cannot append memory "${memory.id}": the agent already has a memory with this id`,
      );
    }
  }
  const claims = options.claims ?? [];
  const { writes, entries } = recordWrites(scope, memories, state.head.seq);
  const head = { seq: state.head.seq + memories.length, txn: state.head.txn + 1 };
  // KV checks at most 100 keys per atomic operation: many claims are stored ahead (a crash
  // then leaves claims of ids never stored, which a retry with the same ids goes through).
  const inFinal = claims.length <= CLAIMS_IN_COMMIT;
  if (!inFinal) await claimAhead(kv, claims, options.fence);
  const final = inFinal && claims.length > 0 ? () => claiming(kv, claims) : undefined;
  return { txn: { writes, head, fence: options.fence, final }, entries };
}

/** The transaction that gives entries new overlays, each keeping its `prev` for a rollback. */
export function overlayTransaction(
  scope: AgentScope,
  state: AgentState,
  changes: readonly OverlayChange[],
): Transaction {
  const txn = state.head.txn + 1;
  const writes = changes.map(({ entry, overlay }) =>
    setValue(
      [...prefixOf(scope), "ovl", entry.seq],
      { txn, next: overlay, prev: entry.overlay } satisfies StoredOverlay,
    )
  );
  return { writes, head: { seq: state.head.seq, txn } };
}

/** The overlay changes that apply (checked) upkeep revisions to the entries that exist. */
export function revisionChanges(
  state: AgentState,
  revisions: readonly MemoryRevision[],
): OverlayChange[] {
  return revisions.flatMap((revision) => {
    const entry = state.byId.get(revision.id);
    return entry === undefined
      ? []
      : [{ entry, overlay: overlayFor(revised(entry.record, revision)) }];
  });
}

/** The transaction that deletes entries' records (keys, or their rows in packs) and overlays. */
export async function removalTransaction(
  kv: Deno.Kv,
  scope: AgentScope,
  { state, doomed }: { state: AgentState; doomed: readonly Entry[] },
): Promise<Transaction> {
  const prefix = prefixOf(scope);
  const writes: KvWrite[] = await recordRemovals(kv, scope, doomed);
  for (const entry of doomed) writes.push(deleteKey([...prefix, "ovl", entry.seq]));
  return { writes, head: { seq: state.head.seq, txn: state.head.txn + 1 } };
}
