/** @module The Narrative Schema persona of an agent, validated and stored as one document (Memory-Driven Role-Playing §3.3). */
import { z } from "zod";
import { type AgentScope, MemoryId } from "../ids.ts";
import { NotFoundError } from "../errors.ts";

const line = (max: number) => z.string().trim().max(max);
const label = (max: number) => z.string().trim().min(1).max(max);
/** Someone the character knows, and how it feels about them. */
export const Relationship = z
  .strictObject({
    name: label(100),
    relationship: line(200).default("").meta({ example: "wife" }),
    attitude: line(300).default("").meta({ example: "devoted, a little protective" }),
  })
  .meta({ id: "PersonaRelationship" });
export type Relationship = z.infer<typeof Relationship>;
/** A stable trait with a short behavioural explanation (the "who I am" layer). */
export const CoreTrait = z
  .strictObject({
    trait: label(80).meta({ example: "hospitable" }),
    desc: line(400).default("").meta({
      example: "Remembers regulars' orders and makes newcomers feel at home",
    }),
  })
  .meta({ id: "CoreTrait" });
export type CoreTrait = z.infer<typeof CoreTrait>;
/** A cue-addressable slice of the persona: how the character is in one recurring situation. */
export const SceneFacet = z
  .strictObject({
    title: label(120).meta({ description: "Handle of the facet; unique within a persona" }),
    time_scope: z.array(label(120)).max(6).default([]).meta({
      description: "Life or story phase when this mode is typical (a boundary anchor)",
    }),
    situation: label(600).meta({ description: "The recurring context that activates the facet" }),
    social_role: z.array(label(100)).max(6).default([]),
    emotional_state: line(300).default(""),
    behavior_pattern: line(600).default(""),
    thinking_pattern: line(600).default(""),
    conflict_with_core: line(400).default(""),
    source_scenes: z.array(label(300)).max(8).default([]),
    cue_phrases: z.array(label(80)).max(20).default([]).meta({
      description: "Words or phrases that, said in the dialogue, call this facet up",
    }),
  })
  .meta({ id: "SceneFacet" });
export type SceneFacet = z.infer<typeof SceneFacet>;
/**
 * The Narrative Schema persona: identity fields, a global summary, 4–8 core traits and 1–12
 * scene facets (the paper builds 5–8; we accept fewer for small characters and a few more for
 * rich ones). Facet titles are unique, since replies report facets by title.
 * @see Wang et al. 2026 §3.3 and Appendix C.
 */
export const Persona = z
  .strictObject({
    name: label(100),
    nickname: line(100).default(""),
    relationships: z.array(Relationship).max(30).default([]),
    global_summary: line(4000).default(""),
    core_traits: z.array(CoreTrait).min(4).max(8),
    scene_facets: z.array(SceneFacet).min(1).max(12),
  })
  .superRefine((p, ctx) => {
    const seen = new Set<string>();
    p.scene_facets.forEach((f, i) => {
      const key = f.title.toLowerCase();
      if (seen.has(key)) {
        ctx.addIssue({
          code: "custom",
          path: ["scene_facets", i, "title"],
          message: `Facet titles must be unique: "${f.title}" appears twice`,
        });
      }
      seen.add(key);
    });
  })
  .meta({
    id: "Persona",
    example: {
      name: "Isabella Rodriguez",
      nickname: "Izzy",
      relationships: [{ name: "Maria Lopez", relationship: "friend", attitude: "warm" }],
      global_summary: "Isabella owns Hobbs Cafe and loves bringing people together.",
      core_traits: [
        { trait: "hospitable", desc: "Makes everyone feel welcome" },
        { trait: "organized", desc: "Plans events down to the napkins" },
        { trait: "optimistic", desc: "Expects the best of people" },
        { trait: "chatty", desc: "Talks with every customer" },
      ],
      scene_facets: [{
        title: "Hosting a party",
        time_scope: ["February 2023"],
        situation: "Planning or running an event at the cafe",
        social_role: ["host"],
        emotional_state: "excited",
        behavior_pattern: "Invites everyone and hands out tasks",
        thinking_pattern: "A good party brings the town together",
        conflict_with_core: "",
        source_scenes: [],
        cue_phrases: ["party", "Valentine's Day", "decorations"],
      }],
    },
  });
export type Persona = z.infer<typeof Persona>;
/** A lorebook entry of an imported card, kept as a knowledge memory the agent can recall. */
export const LoreEntry = z.object({
  name: z.string(),
  /** Words that, said in the dialogue, bring this knowledge into the reply (cue phrases). */
  keys: z.array(z.string()),
  content: z.string(),
  memoryId: MemoryId,
});
export type LoreEntry = z.infer<typeof LoreEntry>;
/**
 * Character text from an imported card that is not part of the Narrative Schema. It is untrusted
 * text written by the card's author: prompts show some of it as data, never as instructions.
 * `creator_notes` is deliberately absent: it is dropped when a card is parsed.
 */
export const CardText = z.object({
  spec: z.enum(["chara_card_v1", "chara_card_v2", "chara_card_v3"]),
  scenario: z.string(),
  first_mes: z.string(),
  mes_example: z.string(),
  alternate_greetings: z.array(z.string()),
  system_prompt: z.string(),
  post_history_instructions: z.string(),
  tags: z.array(z.string()),
  creator: z.string(),
  character_version: z.string(),
  /** Other tools' extension data, kept only so an export gives it back. */
  extensions: z.record(z.string(), z.unknown()),
});
export type CardText = z.infer<typeof CardText>;
/** What is stored per agent: the persona, its lorebook links and card text (when imported). */
export const PersonaRecord = z.object({
  persona: Persona,
  lore: z.array(LoreEntry),
  card: CardText.nullable(),
});
export type PersonaRecord = z.infer<typeof PersonaRecord>;

/** The `not_found` error of an agent that has no persona yet, naming the two ways to give it one. */
export function personaNotFound(scope: AgentScope): NotFoundError {
  const base = `/v1/worlds/${scope.worldId}/agents/${scope.agentId}/persona`;
  return new NotFoundError(
    "not_found",
    `Cannot find a persona for agent "${scope.agentId}": set one with PUT ${base} or derive one with POST ${base}/build`,
  );
}
