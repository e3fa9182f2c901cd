/** @module The cached agent summary every cognition prompt starts from (paper App. A). */
import { z } from "zod";
import {
  addUsage,
  type Agent,
  type AgentMoment,
  ConflictError,
  emptyUsage,
  GameTime,
  hoursBetween,
  type Usage,
} from "../../domain/mod.ts";
import { type Deps, type DocumentKey, updateDocument, writeOverRead } from "../../ports/mod.ts";
import { recall } from "../memory/mod.ts";
import { summarizeAgent } from "../../mind/mod.ts";

/** A summary as cached. */
export const AgentSummary = z
  .object({
    /** The whole text prompts include. */
    text: z.string(),
    core: z.string(),
    occupation: z.string(),
    feeling: z.string(),
    /** Game time it was made. */
    at: GameTime,
    /** Set by a reflection: the next use remakes it. */
    stale: z.boolean(),
  })
  .meta({ id: "AgentSummary" });
export type AgentSummary = z.infer<typeof AgentSummary>;

/** Memories recalled per aspect. */
const K = 8;

/** Where an agent's cached summary lives. */
export function summaryKey(agent: Pick<Agent, "worldId" | "id">): DocumentKey {
  return { collection: "summaries", scope: agent.worldId, id: agent.id };
}

/** The identity line: name, age and innate traits, which never need a model. */
export function identityLine(agent: Agent): string {
  const age = agent.age === null ? "" : ` (age ${agent.age})`;
  const traits = agent.traits.length > 0 ? `\nInnate traits: ${agent.traits.join(", ")}` : "";
  return `Name: ${agent.name}${age}${traits}`;
}

/**
 * The agent's summary at `at`: the cached one unless it is stale (a reflection happened) or
 * older than the world's `summaryRefreshHours`; otherwise three retrievals ("core
 * characteristics", "current daily occupation", "feeling about recent progress in life") in one
 * embedding call and one main-model call, joined with name, age and traits, then cached.
 * @throws `model_*` when remaking it fails (the old one stays cached).
 */
export async function agentSummary(
  deps: Pick<Deps, "storage" | "model" | "embedder">,
  { world, agent, at }: AgentMoment,
): Promise<{ summary: AgentSummary; usage: Usage }> {
  const key = summaryKey(agent);
  const cached = await deps.storage.documents.get<AgentSummary>(key);
  if (
    cached && !cached.value.stale &&
    Math.abs(hoursBetween(cached.value.at, at)) < world.settings.summaryRefreshHours
  ) {
    return { summary: cached.value, usage: emptyUsage() };
  }
  const name = agent.name;
  const recalled = await recall(deps, {
    world,
    agent,
    queries: [
      `${name}'s core characteristics`,
      `${name}'s current daily occupation`,
      `${name}'s feeling about recent progress in life`,
    ],
  }, { at, k: K });
  const [core, occupation, feeling] = recalled.results.map((r) =>
    r.map((s) => s.memory.description)
  );
  const made = await summarizeAgent(deps, { world, agent }, { core, occupation, feeling });
  const parts = made.value;
  const summary: AgentSummary = {
    text: [identityLine(agent), parts.core, parts.occupation, parts.feeling].join("\n"),
    ...parts,
    at,
    stale: false,
  };
  // A concurrent refresh may win; either summary is fresh, so losing the race is fine.
  await writeOverRead(deps.storage.documents, key, { value: summary, version: cached?.version });
  return { summary, usage: addUsage(made.usage, recalled.usage) };
}

/** Marks the cached summary stale, so the next use remakes it (called after a reflection). */
export async function invalidateSummary(deps: Pick<Deps, "storage">, agent: Agent): Promise<void> {
  await updateDocument<AgentSummary>(deps.storage.documents, summaryKey(agent), {
    change: (cached) => !cached || cached.stale ? undefined : { ...cached, stale: true },
    attempts: 3,
    create: false,
  }).catch((err) => {
    // Losing every race means others rewrote the summary meanwhile: it is fresh enough.
    if (!(err instanceof ConflictError)) throw err;
  });
}

/** The cached summary without remaking it, or null (for reads such as GET agent). */
export async function cachedSummary(
  deps: Pick<Deps, "storage">,
  agent: Agent,
): Promise<AgentSummary | null> {
  return (await deps.storage.documents.get<AgentSummary>(summaryKey(agent)))?.value ?? null;
}
