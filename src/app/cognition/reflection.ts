/** @module Reflection: questions from recent memories, cited insights, stored as a tree of reflection memories (Generative Agents §4.2). */
import { type Deps, type Lease, updateDocument } from "../../ports/mod.ts";
import { z } from "zod";
import {
  addUsage,
  type Agent,
  agentNotFound,
  type AgentScope,
  emptyUsage,
  GameTime,
  type MemoryId,
  MemoryRecord,
  type QuestionInsights,
  UsageCounts,
  withoutRepeats,
  type World,
  type WorldId,
} from "../../domain/mod.ts";
import { agentKey, type AgentTransaction } from "../agents/mod.ts";
import {
  budgetOf,
  type NewMemory,
  prepareMemories,
  recall,
  strengthenRepeats,
  writeMemories,
} from "../memory/mod.ts";
import { reflectionInsights, reflectionQuestions } from "../../mind/mod.ts";
import { invalidateSummary } from "./agent_summary.ts";

/** How many of the newest memories the questions are drawn from (paper: 100). */
export const RECENT_MEMORIES = 100;

/**
 * Memories retrieved per question as evidence for its insights. The reference code retrieves 30
 * per question; the paper's example cites numbers up to 15. 18 keeps each insights prompt at
 * about 550 tokens of one-line memories (offline count) while leaving the model enough to
 * combine; reflections compete with observations in that retrieval, so trees can grow. Since
 * consolidation merges repeats (README "Memory upkeep"), each of the 18 is a distinct memory,
 * where 20 used to hold the same sighting several times.
 */
export const EVIDENCE_PER_QUESTION = 18;

/** The body of `POST …/agents/{agent}/reflect`. */
export const ReflectInput = z
  .strictObject({
    force: z.boolean().default(false).meta({
      description:
        "Reflect even when the importance since the last reflection is below the threshold",
    }),
    at: GameTime.optional().meta({
      description: "Game time of the reflection; default: the world clock",
    }),
  })
  .meta({ id: "ReflectInput", example: { force: true } });
export type ReflectInput = z.input<typeof ReflectInput>;

/** The response of reflect. */
export const ReflectResult = z
  .object({
    reflections: z.array(MemoryRecord).meta({
      description:
        "The reflection memories stored, each with its evidence ids and depth; empty when not due",
    }),
    questions: z.array(z.string()).meta({
      description: "The questions the reflection asked itself; empty when not due",
    }),
    usage: UsageCounts,
  })
  .meta({ id: "ReflectResult" });
export type ReflectResult = z.infer<typeof ReflectResult>;

/** Options of a reflection on request (`app/reflect.ts`). */
export interface ReflectOptions {
  /** Reflect even when not due. @default false */
  force?: boolean;
  /** Game time of the reflection (recency, access times, `createdAt`). @default the world clock */
  at?: GameTime;
}

/** One insight with its cited memories resolved. */
export interface CitedInsight {
  description: string;
  evidence: MemoryId[];
  /** 1 + the deepest evidence; observations and other non-reflections count 0. */
  depth: number;
}

/**
 * The tick's reflection step: reflects when automatic reflection is on (the world's
 * `autoReflect`) and the agent's counter has reached the threshold; otherwise returns empty
 * without touching the store.
 * @throws as {@linkcode reflectHeld}.
 * @see Generative Agents §4.2 "Trigger".
 */
export async function reflectIfDue(
  deps: Pick<Deps, "model" | "embedder" | "ids">,
  tx: AgentTransaction,
  at: GameTime,
): Promise<ReflectResult> {
  if (!autoReflectOn(tx.world) || !isDue(tx.world, tx.agent)) return notReflected();
  return await reflectHeld(deps, tx, { force: false, at });
}

/**
 * Resolves each insight's cited numbers (1-based positions in the memories shown) to memory
 * ids: numbers that point nowhere are dropped, repeated ones kept once, and an insight
 * left without evidence is discarded. Identical insights (ignoring case and spacing) become one
 * with the union of their evidence. Depth is 1 + the deepest evidence, where a reflection counts
 * its own depth and any other memory 0, so reflections on reflections form trees.
 * @see Generative Agents §4.2 "Step 2".
 */
export function citeInsights(
  shown: readonly MemoryRecord[],
  answers: readonly (QuestionInsights | null)[],
): CitedInsight[] {
  const merged = new Map<string, { description: string; evidence: Map<MemoryId, MemoryRecord> }>();
  answers.forEach((answer) => {
    for (const { insight, evidence } of answer?.insights ?? []) {
      const cited = evidence
        .filter((n) => Number.isInteger(n) && n >= 1 && n <= shown.length)
        .map((n) => shown[n - 1]);
      if (cited.length === 0) continue;
      const description = insight.trim();
      const key = description.toLowerCase().replace(/\s+/g, " ");
      const entry = merged.get(key) ?? { description, evidence: new Map() };
      for (const m of cited) entry.evidence.set(m.id, m);
      merged.set(key, entry);
    }
  });
  return [...merged.values()].map(({ description, evidence }) => ({
    description,
    evidence: [...evidence.keys()],
    depth: 1 + Math.max(...[...evidence.values()].map(depthOf)),
  }));
}

function depthOf(memory: MemoryRecord): number {
  return memory.kind === "reflection" ? memory.depth ?? 1 : 0;
}

function isDue(world: World, agent: Agent): boolean {
  return agent.importanceSinceReflection >= world.settings.reflectionThreshold;
}

/** Worlds stored before `autoReflect` existed have no value for it: they keep the default, on. */
export function autoReflectOn(world: World): boolean {
  return world.settings.autoReflect !== false;
}

function notReflected(): ReflectResult {
  return { reflections: [], questions: [], usage: emptyUsage() };
}

/**
 * Reflects for the transaction's agent: when due (summed importance since the last reflection ≥
 * the world's `reflectionThreshold`) or forced, asks the main model for `reflectionQuestions`
 * questions about its 100 newest memories, recalls evidence for all of them in one embedding
 * call (reflections included), asks for up to 5 cited insights per question (all in one call), and
 * stores the insights as `reflection` memories: one importance call, one embedding call and one
 * atomic append, all or nothing (an insight the agent already holds is not stored again: the
 * stored one is strengthened, README "Memory upkeep"). Then resets the counter to 0 and marks the agent summary
 * stale. Returns empty without a model call when not due.
 *
 * A model failure (`model_invalid_output` after the client's one repair attempt, or the model
 * unavailable) stores nothing and leaves the counter as it was; the memories recalled as
 * evidence keep their new access time, which is what retrieval means.
 *
 * @throws `model_*`, `store_unavailable`.
 * @see Generative Agents §4.2; Park et al. 2023 §4.2.
 */
export async function reflectHeld(
  deps: Pick<Deps, "model" | "embedder" | "ids">,
  tx: AgentTransaction,
  options: { force: boolean; at: GameTime },
): Promise<ReflectResult> {
  const { world, agent, lease: fence } = tx;
  const scope: AgentScope = { worldId: world.id as WorldId, agentId: agent.id };
  const d = { ...deps, storage: tx.storage };
  if (!options.force && !isDue(world, agent)) return notReflected();

  // Step 1: questions about the newest memories, shown oldest first. The newest experiences: a
  // repeat merged into an earlier memory since still counts as one (the prompt shows repeats
  // once, with how often), an archived memory does not.
  const page = await tx.storage.memories.list(scope, {
    limit: RECENT_MEMORIES,
    order: "desc",
    status: "all",
  });
  const recent = page.memories.filter((m) => m.archivedAt === undefined).reverse();
  if (recent.length === 0) return notReflected();
  const asked = await reflectionQuestions(deps, tx, recent.map((m) => m.description));
  const questions = asked.questions;

  // Step 2: evidence for every question in one recall, then the insights of each question.
  const recalled = await recall(d, { world, agent, queries: questions }, {
    at: options.at,
    k: EVIDENCE_PER_QUESTION,
  });
  // Near-identical evidence (repeats not yet consolidated) is shown once; so is a memory that
  // several questions recalled.
  const perQuestion = recalled.results.map((found) => withoutRepeats(found.map((s) => s.memory)));
  const shown = [...new Map(perQuestion.flat().map((m) => [m.id, m])).values()];
  const number = new Map(shown.map((m, i) => [m.id, i + 1]));
  const answered = await reflectionInsights(deps, tx, {
    questions,
    memories: shown.map((m) => m.description),
    recalled: perQuestion.map((memories) => memories.map((m) => number.get(m.id)!)),
  });

  // Step 3: store every insight of this reflection together, all or nothing.
  // An insight the agent already holds strengthens the stored one instead of being stored again.
  const insights = citeInsights(shown, answered.answers);
  const { fresh } = await strengthenRepeats(d, scope, {
    items: insights.map((insight): NewMemory => ({
      description: insight.description,
      kind: "reflection",
      provenance: "self",
      at: options.at,
      evidence: insight.evidence,
      depth: insight.depth,
    })),
    at: options.at,
    fence,
  });
  const prepared = await prepareMemories(d, agent, { items: fresh });
  await writeMemories(d, scope, { prepared, fence, budget: budgetOf(tx.world, options.at) });
  // Reset even when no insight survived: the agent did reflect, and keeping the counter would
  // re-run the same reflection after every perceive.
  await resetCounter(d, scope, { pending: prepared.stillPending, fence });
  if (prepared.records.length > 0) await invalidateSummary(d, agent);

  return {
    reflections: prepared.records,
    questions,
    usage: addUsage(asked.usage, recalled.usage, answered.usage, prepared.usage),
  };
}

/**
 * Sets the reflection counter to 0 and queues reflections whose importance call failed for a
 * later score. Reflections do not count towards the next trigger (as in the reference code,
 * only perceived memories do), except that a late score, added by the perceive that fills it,
 * counts like any other. Applied to the agent as the transaction has it (its commit checks
 * nobody changed it meanwhile).
 */
async function resetCounter(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  change: { pending: readonly MemoryId[]; fence: Lease },
): Promise<void> {
  await updateDocument<Agent>(deps.storage.documents, agentKey(scope), {
    change: (current) => {
      if (current === null) throw agentNotFound(scope);
      return {
        ...current,
        importanceSinceReflection: 0,
        pendingImportance: [...current.pendingImportance, ...change.pending],
      };
    },
    attempts: 3,
    create: false,
    fence: change.fence,
    conflict:
      `Cannot reset the reflection counter of agent "${scope.agentId}": its document kept changing; the reflections are stored, so the next reflection may come early`,
  });
}
