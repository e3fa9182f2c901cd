/**
 * @module The day plan as the planning operations start from it: loaded when stored, else made
 * in broad strokes from the agent summary and the previous day (Generative Agents §4.3).
 */
import {
  addUsage,
  type AgentContext,
  type AgentMoment,
  clockMinutes,
  ConflictError,
  DAY_PLAN_ITEMS,
  DayPlan,
  emptyUsage,
  type Environment,
  knownPlaces,
  LeaseLostError,
  monthDay,
  planItemsFromAnswer,
  type PlanMade,
  planningTime,
  timeAt,
  type Usage,
  weekdayOf,
  type World,
  type WorldId,
} from "../../domain/mod.ts";
import type { Deps, FencedWrite } from "../../ports/mod.ts";
import { loadEnvironment } from "../world/mod.ts";
import { loadActiveGoals } from "../game_hooks/mod.ts";
import { recall } from "../memory/mod.ts";
import { type DayPlanRequest, planDay } from "../../mind/mod.ts";
import { agentSummary } from "./agent_summary.ts";
import { planKey, previousDayNotes, rememberItems } from "./plan_store.ts";

/** What a day plan prompt shows that has to be loaded or made first, and what making it cost. */
export interface DayPlanInputs {
  prompt: Pick<DayPlanRequest, "summary" | "previousDay" | "places" | "comingUp" | "goals">;
  /** The goals the prompt shows, by number: an answered item's `goal` names one of them. */
  goals: { id: string }[];
  usage: Usage;
}

/** Memories of what is coming up that a day plan is shown (no model call: one retrieval). */
const COMING_UP = 3;

/**
 * The agent summary at `at`, the places the agent knows, the previous day's notes (for a
 * `replan`, only the latest reflections: it is shown today's plan instead) and what it knows is
 * coming up that day (the memories, not plans or sightings, that retrieval finds for its plans
 * and engagements on that date: an invitation heard yesterday), in that order: the day plan and
 * the re-plan start from the same.
 * @see the reference implementation, which retrieves "<name>'s plan for <date>" at the start of
 * each day; here without the model call that turns it into a note.
 */
export async function dayPlanInputs(
  deps: Pick<Deps, "storage" | "model" | "embedder">,
  { world, agent, at }: AgentMoment,
  { date, env: known, replan = false }: { date: string; replan?: boolean } & KnownEnvironment,
): Promise<DayPlanInputs> {
  const summary = await agentSummary(deps, { world, agent, at });
  const env = await environmentOf(deps, world, known);
  const places = knownPlaces(env, agent);
  const previousDay = await previousDayNotes(deps, { world, agent, at }, {
    date,
    items: !replan,
  });
  const query = `What is ${agent.name} planning, or invited to, on ${weekdayOf(date)} ${
    monthDay(date)
  }?`;
  const recalled = await recall(deps, { world, agent, queries: [query] }, {
    at,
    k: COMING_UP,
    kinds: ["seed", "chat", "reflection"],
  });
  const comingUp = recalled.results[0].map((s) => s.memory.description);
  // The goals the game set that are still active then, most pressing first (no model call).
  const goals = await loadActiveGoals(
    deps,
    { worldId: world.id as WorldId, agentId: agent.id },
    at,
  );
  return {
    prompt: {
      summary: summary.summary.text,
      previousDay,
      places,
      comingUp,
      goals: goals.map((g) => ({ description: g.description, priority: g.priority })),
    },
    goals: goals.map((g) => ({ id: g.id })),
    usage: addUsage(summary.usage, recalled.usage),
  };
}

/** A day plan in broad strokes, made for `date` and not yet stored: one `plan.day` call. */
export async function draftDayPlan(
  deps: Pick<Deps, "storage" | "model" | "embedder">,
  { world, agent }: AgentContext,
  { date, env }: { date: string } & KnownEnvironment,
): Promise<{ plan: DayPlan; usage: Usage }> {
  const at = planningTime(world, date);
  const inputs = await dayPlanInputs(deps, { world, agent, at }, { date, env });
  const made = await planDay(deps, { world, agent }, {
    ...inputs.prompt,
    date,
    minItems: DAY_PLAN_ITEMS.min,
    maxItems: DAY_PLAN_ITEMS.max,
    remainder: null,
  });
  const { wakeUp, items } = made.value;
  // The schema keeps items in order; waking after the first item starts means waking then.
  const wake = Math.min(clockMinutes(wakeUp), clockMinutes(items[0].start));
  return {
    plan: {
      worldId: world.id,
      agentId: agent.id,
      date,
      wakeUp: timeAt(date, wake),
      items: planItemsFromAnswer(items, {
        date,
        from: wake,
        places: inputs.prompt.places,
        goals: inputs.goals,
      }),
      revision: 1,
      madeAt: at,
      replans: [],
    },
    usage: addUsage(inputs.usage, made.usage),
  };
}

/** The stored plan of the day, made (and remembered) first when there is none. */
export async function ensurePlan(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  { world, agent }: AgentContext,
  { date, fence, env }: { date: string } & FencedWrite & KnownEnvironment,
): Promise<{ plan: DayPlan; usage: Usage; plans: PlanMade[] }> {
  const key = planKey(world.id, agent.id, date);
  const stored = await deps.storage.documents.get<DayPlan>(key);
  if (stored) return { plan: stored.value, usage: emptyUsage(), plans: [] };
  const draft = await draftDayPlan(deps, { world, agent }, { date, env });
  const plans: PlanMade[] = [{ agentId: agent.id, date, replan: false }];
  try {
    await deps.storage.documents.create(key, draft.plan, { fence });
  } catch (err) {
    if (!(err instanceof ConflictError) || err instanceof LeaseLostError) throw err;
    // A concurrent request made the plan first: use it, and forget ours.
    const winner = await deps.storage.documents.get<DayPlan>(key);
    if (winner) return { plan: winner.value, usage: draft.usage, plans };
    throw err;
  }
  const remembered = await rememberItems(deps, agent, {
    plan: draft.plan,
    items: draft.plan.items,
    at: draft.plan.madeAt,
    fence,
  });
  return { plan: draft.plan, usage: addUsage(draft.usage, remembered), plans };
}

/** The world's environment, when the caller has it already (a tick carries it). */
export interface KnownEnvironment {
  env?: Environment | null;
}

export function environmentOf(
  deps: Pick<Deps, "storage">,
  world: World,
  known: Environment | null | undefined,
): Promise<Environment | null> {
  return known === undefined ? loadEnvironment(deps, world.id) : Promise.resolve(known);
}
