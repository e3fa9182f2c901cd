/**
 * @module Character Cards V2/V3 (JSON or PNG): parse them without their creator notes, import
 * them as an agent with a persona, seed memories and lorebook knowledge, and export V2 (SPEC §7).
 * @see https://github.com/malfoyslastname/character-card-spec-v2
 * @see https://github.com/kwaroran/character-card-spec-v3
 */
import { z } from "zod";
import {
  type Agent,
  agentKey,
  CreateAgentInput,
  loadAgent,
  newAgent,
  startingAreas,
  storeNewAgent,
} from "../agents/agent.ts";
import type { Deps } from "../deps.ts";
import { SimulacraError } from "../errors.ts";
import { AgentId, type AgentScope, type MemoryId, type WorldId } from "../ids.ts";
import { type NewMemory, prepareMemories, writeMemories } from "../memory/ingest.ts";
import type { MemoryRecord } from "../ports/memory_record.ts";
import { addUsage, type Usage } from "../model/usage.ts";
import { getWorld } from "../world/world.ts";
import { derivePersona } from "./build_persona.ts";
import {
  type CardText,
  loadPersonaRecord,
  type LoreEntry,
  Persona,
  personaKey,
  type PersonaRecord,
  updatePersonaRecord,
} from "./persona.ts";
import { readPngText } from "./png_text.ts";
import { assertCardFits, parseCardJson } from "./card_limits.ts";

/** Where our own data lives inside a card's `extensions`. */
export const EXTENSION_KEY = "simulacra";

const str = z.preprocess(
  (v) => (typeof v === "string" ? v : v == null ? "" : String(v)),
  z.string(),
);
const strList = z.preprocess(
  (v) => (Array.isArray(v) ? v.filter((x) => typeof x === "string") : []),
  z.array(z.string()),
);
const record = z.preprocess(
  (v) => (typeof v === "object" && v !== null && !Array.isArray(v) ? v : {}),
  z.record(z.string(), z.unknown()),
);

const BookEntry = z.object({
  keys: strList,
  content: str,
  name: str,
  enabled: z.preprocess((v) => v !== false, z.boolean()),
});

/**
 * The card fields we read. Parsing keeps only these, so `creator_notes` (and V3's
 * `creator_notes_multilingual`, and lorebook `comment`s) never get past this point.
 */
const CardData = z.object({
  name: z.string().trim().min(1, "the card has no name"),
  nickname: str,
  description: str,
  personality: str,
  scenario: str,
  first_mes: str,
  mes_example: str,
  system_prompt: str,
  post_history_instructions: str,
  alternate_greetings: strList,
  tags: strList,
  creator: str,
  character_version: str,
  extensions: record,
  character_book: z.preprocess(
    (v) => (typeof v === "object" && v !== null ? v : { entries: [] }),
    z.object({
      name: str,
      entries: z.preprocess((v) => (Array.isArray(v) ? v : []), z.array(BookEntry)),
    }),
  ),
});
type CardData = z.infer<typeof CardData>;

/** A card as we keep it: its spec and the fields we use. */
export interface ParsedCard {
  spec: CardText["spec"];
  data: CardData;
}

function invalidCard(problem: string, message: string): SimulacraError {
  return new SimulacraError("invalid_request", `Cannot import the character card: ${message}`, {
    details: { problem },
  });
}

/**
 * Reads a card object: V3 (`spec: "chara_card_v3"`), V2 (`"chara_card_v2"`) or a V1 card (the
 * fields at top level).
 * @throws `invalid_request` naming the problem (not an object, unknown spec, no name).
 */
export function parseCardObject(value: unknown): ParsedCard {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidCard("not_an_object", "the card is not a JSON object");
  }
  const obj = value as Record<string, unknown>;
  let spec: CardText["spec"];
  let data: unknown;
  if (obj.spec === "chara_card_v3" || obj.spec === "chara_card_v2") {
    spec = obj.spec;
    data = obj.data;
    if (typeof data !== "object" || data === null) {
      throw invalidCard("no_data", `a "${obj.spec}" card needs a "data" object`);
    }
  } else if (obj.spec === undefined && typeof obj.name === "string") {
    spec = "chara_card_v1";
    data = obj;
  } else {
    throw invalidCard(
      "unknown_spec",
      `spec ${JSON.stringify(obj.spec ?? null)} is not "chara_card_v2" or "chara_card_v3"`,
    );
  }
  const parsed = CardData.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidCard(
      "invalid_field",
      `field "${issue?.path.join(".") || "data"}": ${issue?.message}`,
    );
  }
  return { spec, data: parsed.data };
}

function decodeBase64Json(text: string, keyword: string): unknown {
  try {
    const binary = atob(text.trim());
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return parseCardJson(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (err) {
    if (err instanceof SimulacraError) throw err;
    throw invalidCard("bad_png_text", `the "${keyword}" text chunk is not base64-encoded JSON`);
  }
}

/**
 * Reads a card from a request body: `application/json` (a card object) or `image/png` (the
 * card in a `ccv3` text chunk, preferred, or a `chara` one).
 * @throws `invalid_request` naming the problem: malformed JSON, a broken PNG, no card chunk, an
 * unsupported content type.
 */
export function parseCard(contentType: string, body: Uint8Array): ParsedCard {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (type === "image/png") {
    const text = readPngText(body);
    const keyword = text.has("ccv3") ? "ccv3" : text.has("chara") ? "chara" : null;
    if (keyword === null) {
      throw invalidCard("no_card_in_png", 'the PNG has no "ccv3" or "chara" text chunk');
    }
    return parseCardObject(decodeBase64Json(text.get(keyword)!, keyword));
  }
  if (/^application\/([a-z.-]+\+)?json$/.test(type)) {
    let value: unknown;
    try {
      value = parseCardJson(new TextDecoder("utf-8", { fatal: true }).decode(body));
    } catch (err) {
      if (err instanceof SimulacraError) throw err;
      throw invalidCard("malformed_json", "the body is not valid JSON");
    }
    return parseCardObject(value);
  }
  throw new SimulacraError(
    "unsupported_media_type",
    `Cannot import a character card of content type "${
      type || "none"
    }": send it with Content-Type: application/json or image/png`,
    {
      details: {
        problem: "unsupported_content_type",
        expected: ["application/json", "image/png"],
        received: type || null,
      },
    },
  );
}

/** Our data inside a card's extensions, when the card came from us. */
const OurExtension = z.object({
  persona: Persona,
  age: z.number().int().min(0).max(1000).nullable().optional(),
  traits: z.array(z.string().max(100)).max(20).optional(),
});

/** Replaces the `{{char}}` / `{{user}}` macros (and `<BOT>` / `<USER>`) in card text. */
export function expandMacros(text: string, name: string): string {
  return text
    .replace(/\{\{char\}\}|<BOT>/gi, name)
    .replace(/\{\{user\}\}|<USER>/gi, "the user")
    .trim();
}

/** Card text split into seed phrases: one per sentence (lines first), long ones clipped. */
export function cardSeedPhrases(text: string, max: number): string[] {
  return text
    .split(/\n+/)
    .flatMap((l) => l.split(/(?<=[.!?])\s+/))
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => (s.length > 600 ? `${s.slice(0, 599)}…` : s))
    .slice(0, max);
}

function traitsOf(personality: string): string[] {
  return personality
    .split(/[,;\n/]+/)
    .map((t) => t.trim().replace(/\.$/, ""))
    .filter((t) => t.length > 0 && t.length <= 100)
    .slice(0, 20);
}

/** Options for {@linkcode importCard}. */
export interface ImportCardOptions {
  /** The new agent's id; minted when absent. */
  id?: AgentId;
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

function loreEntries(d: CardData) {
  return d.character_book.entries.filter((e) => e.enabled && e.content.trim().length > 0);
}

/**
 * Imports a card as a new agent: name, description (seed memories, macros expanded), traits
 * from the personality, the scenario as seeds, lorebook entries as knowledge memories whose keys
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
  deps: Deps,
  worldId: WorldId,
  parsed: ParsedCard,
  options: ImportCardOptions = {},
): Promise<ImportedCard> {
  const world = await getWorld(deps, worldId);
  const d = parsed.data;
  const name = d.name.trim();
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
  });
  if (!input.success) {
    const issue = input.error.issues[0];
    throw invalidCard("invalid_field", `field "${issue?.path.join(".")}": ${issue?.message}`);
  }
  const created = newAgent(deps, worldId, input.data, world.clock.now);
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

  const built = ours.success ? null : await derivePersona(deps, agent, {
    memories: [],
    narrative: null,
    card: {
      personality: expandMacros(d.personality, name),
      scenario,
      examples: expandMacros(d.mes_example, name),
    },
  });
  const persona: Persona = ours.success ? { ...ours.data.persona, name } : {
    ...built!.persona,
    nickname: built!.persona.nickname || d.nickname.trim().slice(0, 100),
  };
  const prepared = await prepareMemories(deps, agent, items);
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
    await writeMemories(deps, scope, prepared);
    await updatePersonaRecord(deps, scope, () => ({ persona, lore, card }));
  } catch (err) {
    await deps.storage.documents.delete(agentKey(scope)).catch(() => false);
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

/** The query of `POST …/agents/import`. */
export const ImportQuery = z.strictObject({
  id: AgentId.optional().meta({ description: "The new agent's id; minted when absent" }),
});
