/** @module The cached agent summary every cognition prompt starts from (paper App. A). */
import { z } from "zod";
import {
  addUsage,
  type Agent,
  agentIdentity,
  type AgentMoment,
  type AgentScope,
  ConflictError,
  emptyUsage,
  GameTime,
  hoursBetween,
  type Usage,
} from "../../domain/mod.ts";
import { type Deps, type DocumentKey, updateDocument, writeOverRead } from "../../ports/mod.ts";
import { recall } from "../memory/mod.ts";
import { loadPersonaRecord } from "../agents/mod.ts";
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

/** Memories recalled per aspect: what changed since the identity, which the prompt shows whole. */
const K = 6;
/**
 * A summary a reflection marked stale is remade once older than this share of the world's
 * `summaryRefreshHours`: the identity it starts from does not change with a reflection, and
 * remaking it after every one (two or three a day) cost more than any other cached prompt.
 */
export const STALE_REFRESH_SHARE = 1 / 3;

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
 * The agent's summary at `at`: the cached one unless it is older than the world's
 * `summaryRefreshHours`, or than a third of it after a reflection marked it stale; otherwise
 * remade and cached. A remade summary
 * starts from the agent's stable identity (description, traits, home, workplace, its persona's
 * background), so who the agent is never depends on winning a retrieval; three retrievals ("core
 * characteristics", "current daily occupation", "feeling about recent progress in life", one
 * embedding call) add what changed, and one main-model call writes the three aspects, joined
 * with name, age and traits.
 * @throws `model_*` when remaking it fails (the old one stays cached).
 */
export async function agentSummary(
  deps: Pick<Deps, "storage" | "model" | "embedder">,
  { world, agent, at }: AgentMoment,
): Promise<{ summary: AgentSummary; usage: Usage }> {
  const key = summaryKey(agent);
  const cached = await deps.storage.documents.get<AgentSummary>(key);
  const refresh = world.settings.summaryRefreshHours;
  if (
    cached &&
    Math.abs(hoursBetween(cached.value.at, at)) <
      (cached.value.stale ? refresh * STALE_REFRESH_SHARE : refresh)
  ) {
    return { summary: cached.value, usage: emptyUsage() };
  }
  const name = agent.name;
  const scope: AgentScope = { worldId: agent.worldId as AgentScope["worldId"], agentId: agent.id };
  const [recalled, record] = await Promise.all([
    recall(deps, {
      world,
      agent,
      queries: [
        `${name}'s core characteristics`,
        `${name}'s current daily occupation`,
        `${name}'s feeling about recent progress in life`,
      ],
    }, { at, k: K }),
    loadPersonaRecord(deps, scope),
  ]);
  const [core, occupation, feeling] = recalled.results.map((r) =>
    r.map((s) => s.memory.description)
  );
  const identity = agentIdentity(agent, record?.persona ?? null);
  const made = await summarizeAgent(deps, { world, agent }, {
    identity,
    core,
    occupation,
    feeling,
  });
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
