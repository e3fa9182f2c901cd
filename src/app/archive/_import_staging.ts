/** @module Private to src/archive: what an import has staged, and how to undo it. */
import type { Deps, Lease } from "../../ports/mod.ts";
import {
  type AgentId,
  agentIdempotencyScope,
  type AgentScope,
  ConflictError,
  LeaseLostError,
  type MemoryId,
  type MemoryRecord,
  type World,
  type WorldId,
} from "../../domain/mod.ts";
import { worldKey } from "../world/mod.ts";
import { embedMemoriesAgain } from "../../mind/mod.ts";

/**
 * What an import wrote so far, to undo it when the import fails. Its writes are fenced by the
 * world's creation lease, which the import holds throughout.
 */
export class Staging {
  /** The world being imported. */
  readonly worldId: WorldId;
  readonly #deps: Pick<Deps, "storage" | "embedder">;
  readonly #fence: Lease;
  readonly #documents: { collection: string; scope: string; id: string }[] = [];
  readonly #eventIds: { scope: AgentScope; eventId: string; id: MemoryId }[] = [];
  /** The agents read so far, whose memories a rollback removes. */
  readonly #agents = new Set<string>();

  constructor(deps: Pick<Deps, "storage" | "embedder">, worldId: WorldId, fence: Lease) {
    this.#deps = deps;
    this.worldId = worldId;
    this.#fence = fence;
  }

  /** Notes an agent read from the file: a rollback removes its memories, vectors and claims. */
  agent(id: string): void {
    this.#agents.add(id);
  }

  /** Writes (or overwrites a leftover of) a document. */
  async document(key: { collection: string; scope: string; id: string }, value: unknown) {
    const { documents } = this.#deps.storage;
    const fence = { fence: this.#fence };
    this.#documents.push(key);
    const existing = await documents.get(key);
    if (existing === null) await documents.create(key, value, fence);
    else await documents.replace(key, value, { expectedVersion: existing.version, ...fence });
  }

  /** Writes memories and their vectors (embedding those given as null); returns how many it embedded. */
  async memories(
    scope: AgentScope,
    records: MemoryRecord[],
    vectors: (Float32Array | null)[],
  ): Promise<number> {
    const todo = records.filter((_, i) => vectors[i] === null);
    const embedded = await embedMemoriesAgain(
      scope,
      { memories: todo, operation: "embedding.import" },
      this.#deps,
    );
    let next = 0;
    const entries = records.map((m, i) => ({
      id: m.id,
      vector: vectors[i] ?? embedded.entries[next++].vector,
    }));
    // Together, not vectors first as a perceive writes them: nothing staged is visible before
    // the commit, and the two writes overlap (one waits on KV while the other encodes). Both
    // are settled before a failure is thrown, so nothing lands after a rollback.
    const written = await Promise.allSettled([
      this.#deps.storage.vectors.upsert(scope, entries),
      this.#deps.storage.memories.append(scope, records, { fence: this.#fence }),
    ]);
    for (const result of written) if (result.status === "rejected") throw result.reason;
    for (const m of records) {
      if (m.eventId !== undefined) this.#eventIds.push({ scope, eventId: m.eventId, id: m.id });
    }
    return todo.length;
  }

  /**
   * Claims each memory's event id, so a perceive of the same event finds its memory: per agent,
   * many to a commit or request (one each cost an import most of its time).
   */
  async claims(worldId: WorldId): Promise<void> {
    const { idempotency } = this.#deps.storage;
    const byAgent = new Map<string, { key: string; value: MemoryId }[]>();
    for (const { scope, eventId, id } of this.#eventIds) {
      const writes = byAgent.get(scope.agentId) ?? [];
      writes.push({ key: `event:${eventId}`, value: id });
      byAgent.set(scope.agentId, writes);
    }
    for (const [agentId, writes] of byAgent) {
      await idempotency.putMany(`${worldId}/${agentId}`, writes);
    }
  }

  /**
   * Creates the world document (fenced: only while the import still holds the world's creation
   * lease): from here on, the world exists.
   */
  async commit(world: World): Promise<World> {
    try {
      await this.#deps.storage.documents.create(worldKey(world.id), world, { fence: this.#fence });
    } catch (err) {
      if (err instanceof ConflictError && !(err instanceof LeaseLostError)) {
        // Only possible once the lease was lost: the import is rolled back all the same.
        throw new ConflictError(
          `Cannot import world "${world.id}": a world with this id was created during the import: import with ?id=<new id>`,
        );
      }
      throw err;
    }
    this.#documents.length = 0;
    this.#agents.clear();
    return world;
  }

  /**
   * Removes what was staged: documents, each agent's memories, vectors and event claims, and the
   * world's events and usage. Best effort: a store that fails now leaves invisible records (no
   * world document), which a later import of the same id overwrites.
   */
  async rollback(): Promise<void> {
    const { documents, memories, vectors, idempotency, events, usage } = this.#deps.storage;
    const worldId = this.worldId;
    try {
      for (const agentId of this.#agents) {
        const scope = { worldId, agentId: agentId as AgentId };
        await memories.clear(scope);
        await vectors.clear(scope);
        await idempotency.clear(agentIdempotencyScope(scope));
      }
      await events.remove(worldId);
      await usage.remove(worldId);
      for (const key of this.#documents) await documents.delete(key);
    } catch {
      // The import's own error is the one to report.
    }
  }
}
