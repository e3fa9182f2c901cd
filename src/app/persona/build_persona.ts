/** @module Derive a persona from an agent's description and memories, or from a narrative (Memory-Driven Role-Playing §3.3). */
import { z } from "zod";
import { loadAgent } from "../agents/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import type { AgentScope, MemoryId, Persona, Usage } from "../../domain/mod.ts";
import { getWorld } from "../world/mod.ts";
import { derivePersona } from "../../mind/mod.ts";
import { updatePersonaRecord } from "./persona_store.ts";

/** The body of `POST …/persona/build`. */
export const BuildPersonaInput = z
  .strictObject({
    narrative: z.string().trim().min(1).max(20_000).optional().meta({
      description: "A story or profile of the character; default: its description and memories",
    }),
    save: z.boolean().default(true).meta({
      description: "Store the result as the agent's persona (false: only return it)",
    }),
  })
  .meta({
    id: "BuildPersonaInput",
    example: {
      narrative:
        "Isabella Rodriguez runs Hobbs Cafe. She loves making people feel welcome and is planning a Valentine's Day party.",
      save: true,
    },
  });
export type BuildPersonaInput = z.input<typeof BuildPersonaInput>;

/** How many memories of each source the prompt gets. */
const SEEDS = 40;
const IMPORTANT = 40;
const MAX_MEMORIES = 60;

/** The agent's most telling memories: its seeds, then its most important memories. */
async function tellingMemories(deps: Pick<Deps, "storage">, scope: AgentScope): Promise<string[]> {
  const { memories } = deps.storage;
  const [seeds, important] = await Promise.all([
    memories.list(scope, { kind: "seed", limit: SEEDS, order: "asc" }),
    memories.top(scope, "importance", IMPORTANT),
  ]);
  const more = await memories.getMany(scope, important as MemoryId[]);
  const texts = [
    ...seeds.memories.map((m) => m.description),
    ...more.filter((m) => m !== null).map((m) => m!.description),
  ];
  return [...new Set(texts)].slice(0, MAX_MEMORIES);
}

/**
 * Derives a persona with the main model, from a narrative when given, else from the agent's
 * description and memories, and stores it unless `save` is false (a card import's lorebook is
 * kept).
 * @throws `world_not_found`, `agent_not_found`, `model_*`, `store_unavailable`.
 */
export async function buildPersona(
  deps: Pick<Deps, "storage" | "model">,
  scope: AgentScope,
  body: BuildPersonaInput,
): Promise<{ persona: Persona; saved: boolean; usage: Usage }> {
  const input = BuildPersonaInput.parse(body);
  await getWorld(deps, scope.worldId);
  const agent = (await loadAgent(deps, scope)).value;
  const memories = input.narrative === undefined ? await tellingMemories(deps, scope) : [];
  const { persona, usage } = await derivePersona(agent, {
    memories,
    narrative: input.narrative ?? null,
    card: null,
  }, deps);
  if (input.save) {
    await updatePersonaRecord(deps, scope, (old) => ({
      persona,
      lore: old?.lore ?? [],
      card: old?.card ?? null,
    }));
  }
  return { persona, saved: input.save, usage };
}
