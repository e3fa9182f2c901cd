/** @module Exporting an agent as a Character Card V2 (Memory-Driven Role-Playing §3.3). */
import { z } from "zod";
import {
  type Agent,
  type AgentScope,
  EXTENSION_KEY,
  type PersonaRecord,
} from "../../domain/mod.ts";
import { loadAgent, loadPersonaRecord } from "../agents/mod.ts";
import type { Deps } from "../../ports/mod.ts";

/** A Character Card V2 as we export it. */
export const CharacterCardV2 = z
  .object({
    spec: z.literal("chara_card_v2"),
    spec_version: z.literal("2.0"),
    data: z.object({
      name: z.string(),
      description: z.string(),
      personality: z.string(),
      scenario: z.string(),
      first_mes: z.string(),
      mes_example: z.string(),
      creator_notes: z.string().meta({ description: "Always empty: creator notes are never kept" }),
      system_prompt: z.string(),
      post_history_instructions: z.string(),
      alternate_greetings: z.array(z.string()),
      character_book: z.object({
        name: z.string(),
        entries: z.array(z.object({
          keys: z.array(z.string()),
          content: z.string(),
          extensions: z.record(z.string(), z.unknown()),
          enabled: z.boolean(),
          insertion_order: z.number(),
          name: z.string(),
          id: z.number(),
        })),
        extensions: z.record(z.string(), z.unknown()),
      }).optional(),
      tags: z.array(z.string()),
      creator: z.string(),
      character_version: z.string(),
      extensions: z.record(z.string(), z.unknown()),
    }),
  })
  .meta({ id: "CharacterCardV2" });
export type CharacterCardV2 = z.infer<typeof CharacterCardV2>;

/** The V2 card of an agent and its (optional) persona record. */
export function cardOf(agent: Agent, record: PersonaRecord | null): CharacterCardV2 {
  const card = record?.card ?? null;
  const persona = record?.persona ?? null;
  const lore = record?.lore ?? [];
  const personality = persona
    ? persona.core_traits.map((t) => t.trait).join(", ")
    : agent.traits.join(", ");
  return {
    spec: "chara_card_v2",
    spec_version: "2.0",
    data: {
      name: agent.name,
      description: agent.description,
      personality,
      scenario: card?.scenario ?? "",
      first_mes: card?.first_mes ?? "",
      mes_example: card?.mes_example ?? "",
      creator_notes: "",
      system_prompt: card?.system_prompt ?? "",
      post_history_instructions: card?.post_history_instructions ?? "",
      alternate_greetings: card?.alternate_greetings ?? [],
      ...(lore.length === 0 ? {} : {
        character_book: {
          name: `${agent.name}'s lore`,
          entries: lore.map((l, i) => ({
            keys: l.keys,
            content: l.content,
            extensions: {},
            enabled: true,
            insertion_order: i,
            name: l.name,
            id: i,
          })),
          extensions: {},
        },
      }),
      tags: card?.tags ?? [],
      creator: card?.creator ?? "",
      character_version: card?.character_version ?? "",
      extensions: {
        ...(card?.extensions ?? {}),
        [EXTENSION_KEY]: {
          ...(persona ? { persona } : {}),
          age: agent.age,
          traits: agent.traits,
        },
      },
    },
  };
}

/**
 * Exports an agent as a Character Card V2 JSON object; our persona, age and traits ride along
 * in `extensions.simulacra`, so importing the card again restores them.
 * @throws `agent_not_found`, `store_unavailable`.
 */
export async function exportCard(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<CharacterCardV2> {
  const agent = (await loadAgent(deps, scope)).value;
  return cardOf(agent, await loadPersonaRecord(deps, scope));
}
