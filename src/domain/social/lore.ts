/**
 * @module World lore (issue 22): entries the game shares with some or all agents, pulled into a
 * prompt by keys said in the recent dialogue, with SillyTavern World Info's semantics where they
 * apply: keys match case-insensitive whole words, secondary keys must match too (AND ANY),
 * `constant` entries are always on, and a budget caps the entries per prompt. An entry with
 * `minTrust` is a secret told only to a speaker the agent trusts that much.
 */
import { z } from "zod";
import { SimulacraError } from "../errors.ts";

/** Most entries a world holds. */
export const MAX_LORE_ENTRIES = 2000;
/** Longest entry text, in characters. */
export const MAX_LORE_CHARS = 2000;
/**
 * Most characters of content a world's lore holds in all (one stored document, kept well under
 * what one atomic write of either backend takes).
 */
export const MAX_LORE_TOTAL_CHARS = 400_000;
/** Entries one prompt takes at most (constant ones first). */
export const LORE_BUDGET = 4;

/** One lore entry as the game sets it. */
export const WorldLoreEntry = z.object({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/).meta({ example: "mill-secret" }),
  keys: z.array(z.string().trim().min(1).max(100)).max(20).meta({ example: ["mill", "miller"] }),
  secondaryKeys: z.array(z.string().trim().min(1).max(100)).max(20).optional(),
  content: z.string().trim().min(1).meta({
    example: "The old mill hides a smugglers' tunnel to the river.",
  }),
  constant: z.boolean().optional(),
  knownBy: z.union([z.literal("all"), z.array(z.string().min(1)).min(1).max(500)]).meta({
    example: "all",
  }),
  minTrust: z.number().min(-1).max(1).optional().meta({ example: 0.3 }),
}).meta({ id: "LoreEntry" });
export type WorldLoreEntry = z.infer<typeof WorldLoreEntry>;

/** The body of `PUT /v1/worlds/{world}/lore`: the whole list, replacing the one stored. */
export const LoreInput = z.object({ entries: z.array(z.unknown()).max(MAX_LORE_ENTRIES) });

function refuse(index: number, message: string, id?: unknown): SimulacraError {
  return new SimulacraError("unprocessable", `Cannot set lore entry ${index}: ${message}`, {
    details: { index, ...(typeof id === "string" ? { id } : {}) },
  });
}

/**
 * The entries, checked one by one so an error names its item (`details.index`): each must have
 * the entry shape, a text of at most {@linkcode MAX_LORE_CHARS} characters (and
 * {@linkcode MAX_LORE_TOTAL_CHARS} for all entries together), an id no earlier
 * entry has, and only agents of the world in `knownBy`; an entry with no keys must be constant.
 * @throws `unprocessable`
 */
export function checkLore(
  entries: readonly unknown[],
  context: { agentIds: ReadonlySet<string> },
): WorldLoreEntry[] {
  const seen = new Set<string>();
  let total = 0;
  return entries.map((raw, index) => {
    const id = (raw as { id?: unknown } | null)?.id;
    const content = (raw as { content?: unknown } | null)?.content;
    if (typeof content === "string" && content.length > MAX_LORE_CHARS) {
      throw refuse(index, `its content is over ${MAX_LORE_CHARS} characters`, id);
    }
    const parsed = WorldLoreEntry.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw refuse(index, `${issue.path.join(".") || "entry"}: ${issue.message}`, id);
    }
    const entry = parsed.data;
    total += entry.content.length;
    if (total > MAX_LORE_TOTAL_CHARS) {
      throw refuse(
        index,
        `the lore's content passes ${MAX_LORE_TOTAL_CHARS} characters in all here`,
        entry.id,
      );
    }
    if (seen.has(entry.id)) throw refuse(index, `the id "${entry.id}" is used twice`, entry.id);
    seen.add(entry.id);
    if (entry.keys.length === 0 && entry.constant !== true) {
      throw refuse(
        index,
        "it has no keys and is not constant, so it would never be used",
        entry.id,
      );
    }
    const unknown = entry.knownBy === "all"
      ? undefined
      : entry.knownBy.find((a) => !context.agentIds.has(a));
    if (unknown !== undefined) {
      throw refuse(
        index,
        `knownBy names agent "${unknown}", which this world does not have`,
        entry.id,
      );
    }
    return entry;
  });
}

/** A lore entry a prompt used, as `used.lore` reports it. */
export interface UsedLore {
  id: string;
  /** The key the dialogue said, or null for a constant entry. */
  matched: string | null;
}

/** What one prompt's lore matching looks at. */
export interface LoreQuery {
  /** The recent dialogue (the last turns and the new message). */
  text: string;
  agentId: string;
  /** The agent's trust in the person in front of it, or null when there is none. */
  trust: number | null;
  /** @default LORE_BUDGET */
  budget?: number;
}

/** Lower-case words separated by single spaces, with a space at each end. */
function padded(text: string): string {
  return ` ${text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()} `;
}

/**
 * The first of `keys` said in the dialogue as whole words, or -1. A plain substring test on the
 * lower-cased text rules out most keys before any normalising (what keeps 1,000 entries under a
 * millisecond).
 */
function saidKey(keys: readonly string[], text: { lower: string; words: string }): number {
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i].toLowerCase();
    if (!text.lower.includes(key.trim())) continue;
    const words = padded(key);
    if (words.length > 2 && text.words.includes(words)) return i;
  }
  return -1;
}

/**
 * The entries the agent knows that the dialogue calls up, in list order with constant ones
 * first, at most `budget`: a key said as whole words (case-insensitive) and, when the entry has
 * secondary keys, one of those too; an entry with `minTrust` only when `trust` reaches it.
 */
export function matchLore(
  entries: readonly WorldLoreEntry[],
  query: LoreQuery,
): { entry: WorldLoreEntry; matched: string | null }[] {
  const budget = query.budget ?? LORE_BUDGET;
  const text = { lower: query.text.toLowerCase(), words: padded(query.text) };
  const constant: { entry: WorldLoreEntry; matched: string | null }[] = [];
  const keyed: { entry: WorldLoreEntry; matched: string | null }[] = [];
  for (const entry of entries) {
    if (entry.knownBy !== "all" && !entry.knownBy.includes(query.agentId)) continue;
    if (entry.minTrust !== undefined && (query.trust === null || query.trust < entry.minTrust)) {
      continue;
    }
    if (entry.constant === true) {
      constant.push({ entry, matched: null });
      continue;
    }
    if (keyed.length >= budget) continue;
    const hit = saidKey(entry.keys, text);
    if (hit < 0) continue;
    const secondary = entry.secondaryKeys ?? [];
    if (secondary.length > 0 && saidKey(secondary, text) < 0) continue;
    keyed.push({ entry, matched: entry.keys[hit] });
  }
  return [...constant, ...keyed].slice(0, budget);
}
