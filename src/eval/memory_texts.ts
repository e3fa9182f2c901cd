/** @module Reading every agent's memory stream as text, for the emergent measures. */
import type { Deps } from "../ports/mod.ts";
import { AgentId, type MemoryKind, type WorldId } from "../domain/mod.ts";
import type { MemoryTexts } from "./diffusion.ts";

/** Options for {@linkcode readMemoryTexts}. */
export interface ReadMemoryTextsOptions {
  /**
   * Leave out memories of these kinds (e.g. `["observation"]`: what an agent only saw).
   * @default none
   */
  exclude?: readonly MemoryKind[];
}

/**
 * The descriptions of every memory of each agent, in creation order, keyed by agent id in the
 * order given. Reads whole streams: meant for the end of a run, not for a request path.
 * @throws `store_unavailable`
 */
export async function readMemoryTexts(
  deps: Pick<Deps, "storage">,
  { worldId, agentIds }: { worldId: WorldId; agentIds: readonly string[] },
  options: ReadMemoryTextsOptions = {},
): Promise<MemoryTexts> {
  const exclude = new Set(options.exclude ?? []);
  const streams = await Promise.all(
    agentIds.map((id) => deps.storage.memories.all({ worldId, agentId: AgentId.parse(id) })),
  );
  return new Map(
    agentIds.map((id, i) => [
      id,
      streams[i].filter((m) => !exclude.has(m.kind)).map((m) => m.description),
    ]),
  );
}
