/**
 * @module Importing a character card as a new agent with a persona, seed memories and lorebook
 * knowledge (Memory-Driven Role-Playing §3.3).
 */
import { z } from "zod";
import {
  addUsage,
  type Agent,
  AgentId,
  type AgentScope,
  assertCardFits,
  cardSeedPhrases,
  type CardText,
  CreateAgentInput,
  expandMacros,
  EXTENSION_KEY,
  invalidCard,
  type LoreEntry,
  type MemoryId,
  type MemoryRecord,
  type ParsedCard,
  Persona,
  stripInvisible,
  type Usage,
  vacantLodging,
  type WorldId,
} from "../../domain/mod.ts";
import { listAgents, newAgent, personaKey, startingAreas, storeNewAgent } from "../agents/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { type NewMemory, prepareMemories, writeMemories } from "../memory/mod.ts";
import { addCardLore } from "../social/mod.ts";
import { getWorld, loadEnvironment } from "../world/mod.ts";
import { derivePersona } from "../../mind/mod.ts";
import { discardNewAgent } from "../lifecycle/mod.ts";
import { updatePersonaRecord } from "./persona_store.ts";

/** Our data inside a card's extensions, when the card came from us. */
const OurExtension = z.object({
  persona: Persona,
  age: z.number().int().min(0).max(1000).nullable().optional(),
  traits: z.array(z.string().max(100)).max(20).optional(),
});

function traitsOf(personality: string): string[] {
  return personality
    .split(/[,;\n/]+/)
    .map((t) => t.trim().replace(/\.$/, ""))
    .filter((t) => t.length > 0 && t.length <= 100)
    .slice(0, 20);
}

/** Options for {@linkcode importCard}. */
export interface ImportCardOptions {
  /** The world the new agent joins. */
  worldId: WorldId;
  /** The new agent's id; minted when absent. */
  id?: AgentId;
  /** An area of the world where it lives; when absent, a vacant lodging (see `vacantLodging`). */
  home?: string;
  /** An area of the world where it works; none when absent. */
  workplace?: string;
}

/** What an import created. */
export interface ImportedCard {
  agent: Agent;
  persona: Persona;
  /** Seed memories: the description, the scenario and one per lorebook entry. */
  seeds: MemoryRecord[];
  lore: { name: string; keys: string[]; memoryId: MemoryId }[];
  card: { spec: CardText["spec"]; personaFrom: "extension" | "model" };
  usage: Usage;
}

/** Most seed phrases taken from a card's description and scenario (the text itself is kept whole). */
const MAX_DESCRIPTION_SEEDS = 60;
const MAX_SCENARIO_SEEDS = 10;

function loreEntries(d: ParsedCard["data"]) {
  return d.character_book.entries.filter((e) => e.enabled && e.content.trim().length > 0);
}

/**
 * Imports a card as a new agent: name, description (seed memories, macros expanded), traits
 * from the personality, a home (`options.home`, else a vacant lodging of the world) where it
 * starts and sleeps, the scenario as seeds, lorebook entries as knowledge memories whose keys
 * pull them into replies, and a persona: ours from `extensions.simulacra` when the card came from
 * us, else derived by the main model from the card's text (never its creator notes). Card text
 * (system prompt, post-history instructions, greetings, sample dialogue) is kept as untrusted
 * character text. Nothing is stored until the model calls succeed.
 *
 * Calls: 1 persona completion (none for our own cards), 1 importance call, 1 embedding call.
 * @throws `invalid_request` (broken card), `world_not_found`, `conflict` (id taken),
 * `model_*`, `store_unavailable`.
 */
export async function importCard(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  parsed: ParsedCard,
  options: ImportCardOptions,
): Promise<ImportedCard> {
  const { worldId } = options;
  const world = await getWorld(deps, worldId);
  const d = parsed.data;
  // Cleaned like the rest of the card: invisible characters would make the name refused.
  const name = stripInvisible(d.name).trim();
  assertCardFits({
    name,
    description: expandMacros(d.description, name),
    lore: loreEntries(d).map((e) => ({ keys: e.keys, content: expandMacros(e.content, name) })),
    examples: expandMacros(d.mes_example, name),
  });
  const ours = OurExtension.safeParse(d.extensions[EXTENSION_KEY]);
  const description = expandMacros(d.description, name);
  const scenario = expandMacros(d.scenario, name);
  const input = CreateAgentInput.safeParse({
    ...(options.id === undefined ? {} : { id: options.id }),
    name,
    ...(ours.success && typeof ours.data.age === "number" ? { age: ours.data.age } : {}),
    traits: ours.success && ours.data.traits ? ours.data.traits : traitsOf(d.personality),
    description: description || name,
    home: options.home ?? await lodgingFor(deps, worldId) ?? undefined,
    ...(options.workplace === undefined ? {} : { workplace: options.workplace }),
  });
  if (!input.success) {
    const issue = input.error.issues[0];
    throw invalidCard("invalid_field", `field "${issue?.path.join(".")}": ${issue?.message}`);
  }
  const created = newAgent(deps, worldId, { input: input.data, now: world.clock.now });
  const agent: Agent = { ...created, ...(await startingAreas(deps, created)) };

  const entries = loreEntries(d)
    .map((e) => {
      const keys = e.keys.map((k) => k.trim()).filter((k) => k.length > 0 && k.length <= 80).slice(
        0,
        20,
      );
      const content = expandMacros(e.content, name);
      const text = keys.length > 0 ? `${keys.join(", ")}: ${content}` : content;
      return { name: e.name.trim().slice(0, 120), keys, text, content };
    });
  const at = world.clock.now;
  const items: NewMemory[] = [
    ...cardSeedPhrases(description, MAX_DESCRIPTION_SEEDS),
    ...cardSeedPhrases(scenario, MAX_SCENARIO_SEEDS),
  ].map((description) => ({ description, kind: "seed", provenance: "seed", at }));
  const loreFrom = items.length;
  items.push(
    ...entries.map((e) => ({
      description: e.text,
      kind: "seed" as const,
      provenance: "seed" as const,
      at,
    })),
  );

  const built = ours.success ? null : await derivePersona(agent, {
    memories: [],
    narrative: null,
    card: {
      personality: expandMacros(d.personality, name),
      scenario,
      examples: expandMacros(d.mes_example, name),
    },
  }, deps);
  const persona: Persona = ours.success ? { ...ours.data.persona, name } : {
    ...built!.persona,
    nickname: built!.persona.nickname || d.nickname.trim().slice(0, 100),
  };
  const prepared = await prepareMemories(deps, agent, { items });
  const stored: Agent = { ...agent, pendingImportance: prepared.stillPending };
  await storeNewAgent(deps, stored);
  const scope: AgentScope = { worldId, agentId: stored.id };
  const lore: LoreEntry[] = entries.map((e, i) => ({
    name: e.name,
    keys: e.keys,
    content: e.content,
    memoryId: prepared.records[loreFrom + i].id,
  }));
  const card: CardText = {
    spec: parsed.spec,
    scenario,
    first_mes: d.first_mes,
    mes_example: d.mes_example,
    alternate_greetings: d.alternate_greetings,
    system_prompt: d.system_prompt,
    post_history_instructions: d.post_history_instructions,
    tags: d.tags,
    creator: d.creator,
    character_version: d.character_version,
    extensions: Object.fromEntries(
      Object.entries(d.extensions).filter(([k]) => k !== EXTENSION_KEY),
    ),
  };
  try {
    await writeMemories(deps, scope, { prepared });
    await updatePersonaRecord(deps, scope, () => ({ persona, lore, card }));
    // The lorebook is world lore known by this agent too (issue 22): used.lore reports it.
    await addCardLore(deps, scope, entries);
  } catch (err) {
    // All or nothing: the next agent created with this id must not inherit these seeds.
    await discardNewAgent(deps, scope, prepared.records.map((r) => r.id));
    await deps.storage.documents.delete(personaKey(scope)).catch(() => false);
    throw err;
  }
  return {
    agent: stored,
    persona,
    seeds: prepared.records,
    lore: lore.map(({ name, keys, memoryId }) => ({ name, keys, memoryId })),
    card: { spec: parsed.spec, personaFrom: ours.success ? "extension" : "model" },
    usage: addUsage(prepared.usage, ...(built ? [built.usage] : [])),
  };
}

/**
 * Where a card character lives when the import names no home: a vacant lodging of the world (an
 * area with a bed that is nobody's home, such as the example town's inn), so it sleeps and starts
 * its day there rather than at the first common place; null when there is none.
 */
async function lodgingFor(deps: Pick<Deps, "storage">, worldId: WorldId): Promise<string | null> {
  const [env, agents] = await Promise.all([
    loadEnvironment(deps, worldId),
    listAgents(deps, worldId),
  ]);
  return vacantLodging(env, agents.flatMap((a) => (a.home === null ? [] : [a.home])));
}

/** The query of `POST …/agents/import`. */
export const ImportQuery = z.strictObject({
  id: AgentId.optional().meta({ description: "The new agent's id; minted when absent" }),
  home: z.string().trim().min(1).max(100).optional().meta({
    description:
      "An area of the world where the character lives; default: a vacant lodging of the world (an area with a bed that is nobody's home), if any",
  }),
  workplace: z.string().trim().min(1).max(100).optional().meta({
    description: "An area of the world where the character works; default: none",
  }),
});
