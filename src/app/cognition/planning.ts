/**
 * @module Planning: a day plan in broad strokes, decomposed just in time into hour chunks and
 * 5–60-minute actions, and re-planned from a moment when something comes up (Generative Agents §4.3). The
 * operations; the plan model is in `plan.ts`, its storage in `plan_store.ts`, decomposition in
 * `plan_decompose.ts`, the HTTP schemas in `plan_api.ts`, the
 * route-facing operations in `plan_requests.ts`.
 */
import { type Agent } from "../../domain/mod.ts";
import type { AgentContext } from "../../domain/mod.ts";
import type { AgentTransaction } from "../agents/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { ConflictError, LeaseLostError } from "../../domain/mod.ts";
import type { FencedWrite } from "../../ports/mod.ts";
import { addUsage, emptyUsage, type Usage } from "../../domain/mod.ts";
import { buildDayPlanPrompt } from "../../domain/mod.ts";
import { GameTime } from "../../domain/mod.ts";
import { clockMinutes, clockTime } from "../../domain/mod.ts";
import { type Environment } from "../../domain/mod.ts";
import { loadEnvironment } from "../world/mod.ts";
import { type World } from "../../domain/mod.ts";
import { type AgentSummary, agentSummary } from "./agent_summary.ts";
import { knownPlaces, sleepLocation } from "../../domain/mod.ts";
import { MIN_MINUTES } from "../../domain/mod.ts";
import {
  cutPoint,
  DAY_PLAN_ITEMS,
  DayPlan,
  itemLine,
  keepBefore,
  planItemsFromAnswer,
  type PlanMade,
  PlannedAction,
  planningTime,
  sleepAction,
  withChunk,
  withItem,
} from "../../domain/mod.ts";
import {
  cacheDecomposition,
  planKey,
  previousDayNotes,
  recordAction,
  rememberItems,
  writePlan,
} from "./plan_store.ts";
import { decomposeChunk, decomposeItem, planningProfile } from "./plan_decompose.ts";
import { DAY_MINUTES, minuteOfDay, timeAt, weekdayOf } from "../../domain/mod.ts";

/**
 * Makes the agent's plan for `date` in broad strokes and stores it (replacing any plan of that
 * date): one `day_plan` call from the agent summary (cached: no call) and a summary of the
 * previous day (its plan items and recent reflections). Items are ordered, contiguous from the
 * wake-up time and each placed in an area the agent knows. Each item is also remembered as a
 * `plan` memory (importance `PLAN_IMPORTANCE` in plan.ts, one embedding call).
 * @throws `model_*`, `store_unavailable`, `conflict` when concurrent writes keep winning.
 * @see Generative Agents §4.3 "Daily plan in broad strokes"; Park et al. 2023 §4.3.
 */
export async function makeDayPlan(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  { world, agent }: AgentContext,
  { date, fence }: { date: string } & FencedWrite,
): Promise<{ plan: DayPlan; usage: Usage }> {
  const draft = await draftDayPlan(deps, world, agent, date);
  const key = planKey(world.id, agent.id, date);
  const plan = await writePlan(deps, key, (current) => ({
    ...draft.plan,
    revision: (current?.revision ?? 0) + 1,
  }), { fence });
  const remembered = await rememberItems(deps, agent, {
    plan,
    items: plan.items,
    at: plan.madeAt,
    fence,
  });
  return { plan, usage: addUsage(draft.usage, remembered) };
}

/**
 * What the agent is doing at `at`. Makes the day plan when there is none, then decomposes just
 * in time: only the broad item in progress into hour chunks (one `hour_plan` call) and only the
 * chunk in progress into actions (one `actions` call); every decomposition is cached in the plan
 * document, so later calls within the same hour cost nothing. Before the wake-up time, after the
 * last item and in any gap the action is "sleeping" (no call), cut into pieces of at most an
 * hour at home. The action is never null; it lasts 5–60 minutes (a sleep piece is shorter only
 * when the whole sleep is) and lies inside its hour chunk.
 *
 * Also records the action as `agent.action` and its location as `agent.location` in the
 * transaction, unless `at` is earlier than the world clock (looking back does not move the
 * agent). Plan memories are fenced by the transaction's lease; `env` is the world's environment
 * when the caller has it (a tick's), read otherwise.
 * @throws `model_*`, `store_unavailable`, `conflict` when the plan keeps changing meanwhile.
 * @see Generative Agents §4.3 "Decompose top-down … just in time"; Park et al. 2023 §4.3 and App. A (plans are
 * decomposed just in time because they change).
 */
export async function currentAction(
  deps: Pick<Deps, "model" | "embedder" | "ids">,
  tx: AgentTransaction,
  { at, env: known }: { at: GameTime } & KnownEnvironment,
): Promise<{ action: PlannedAction | null; usage: Usage; plans: PlanMade[] }> {
  const { world, agent, lease: fence } = tx;
  const d = { ...deps, storage: tx.storage };
  const date = at.slice(0, 10);
  const minute = Math.floor(minuteOfDay(date, at));
  const key = planKey(world.id, agent.id, date);
  let usage = emptyUsage();
  const plans: PlanMade[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const ensured = await ensurePlan(d, world, agent, date, { fence, env: known });
    usage = addUsage(usage, ensured.usage);
    plans.push(...ensured.plans);
    let plan = ensured.plan;
    const env = await environmentOf(d, world, known);
    const index = plan.items.findIndex((item) =>
      minuteOfDay(date, item.start) <= minute && minute < minuteOfDay(date, item.end)
    );
    if (index === -1) {
      const action = sleepAction(plan, minute, sleepLocation(env, agent));
      await recordAction(d, { world, agent, at }, action);
      return { action, usage, plans };
    }
    let summary: AgentSummary | null = null;
    const summaryOf = async (): Promise<AgentSummary> => {
      if (summary === null) {
        const made = await agentSummary(d, world, agent, at);
        usage = addUsage(usage, made.usage);
        summary = made.summary;
      }
      return summary;
    };

    if (plan.items[index].chunks === null) {
      const made = await decomposeItem(d, { world, agent }, {
        plan,
        index,
        profile: planningProfile(agent, await summaryOf(), ["core", "occupation"]),
      });
      usage = addUsage(usage, made.usage);
      const cached = await cacheDecomposition(
        d,
        key,
        plan.revision,
        (p) => p.items[index].chunks === null ? withItem(p, index, { chunks: made.chunks }) : null,
        { fence },
      );
      if (cached === null) continue; // re-planned meanwhile: start over on the new plan
      plan = cached;
    }
    const chunks = plan.items[index].chunks!;
    const c = chunks.findIndex((chunk) =>
      minuteOfDay(date, chunk.start) <= minute && minute < minuteOfDay(date, chunk.end)
    );
    if (chunks[c].actions === null) {
      const made = await decomposeChunk(d, { world, agent }, {
        env,
        plan,
        index,
        chunk: c,
        profile: planningProfile(agent, await summaryOf(), ["occupation"]),
      });
      usage = addUsage(usage, made.usage);
      const cached = await cacheDecomposition(
        d,
        key,
        plan.revision,
        (p) =>
          p.items[index].chunks?.[c]?.actions === null
            ? withChunk(p, { item: index, chunk: c }, made.actions)
            : null,
        { fence },
      );
      if (cached === null) continue;
      plan = cached;
    }
    const action = plan.items[index].chunks![c].actions!.find((a) =>
      minuteOfDay(date, a.start) <= minute && minute < minuteOfDay(date, a.end)
    )!;
    await recordAction(d, { world, agent, at }, action);
    return { action, usage, plans };
  }
  throw new ConflictError(
    `Cannot work out what agent "${agent.id}" does at "${at}": its plan kept changing meanwhile, retry shortly`,
  );
}

/**
 * Keeps the day up to `from` and plans the rest again, taking `reason` into account (e.g.
 * "talked with Maria about the party"): one `day_plan` call for the remainder. The item, chunk and
 * action in progress are cut at `from` (or at their start when less than 5 minutes of them have
 * passed); cached decompositions before the cut stay, everything after it is replaced. Together
 * the day keeps at most 8 broad items, except that a re-plan inside the eighth item adds one.
 * Makes the day plan first when there is none. New items become `plan` memories made at `from`.
 * With less than 5 minutes of the day left, nothing changes. Writes are fenced by `fence`.
 * @throws `model_*`, `store_unavailable`, `conflict` when another re-plan of the same day wins.
 * @see Generative Agents §4.3 "A reaction regenerates the plan from now"; Park et al. 2023 §4.3.
 */
export async function replanFrom(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  { world, agent }: AgentContext,
  { from, reason, fence }: { from: GameTime; reason: string } & FencedWrite,
): Promise<{ plan: DayPlan; usage: Usage; plans: PlanMade[] }> {
  const date = from.slice(0, 10);
  const minute = Math.floor(minuteOfDay(date, from));
  const ensured = await ensurePlan(deps, world, agent, date, { fence });
  let usage = ensured.usage;
  const plans = ensured.plans;
  const base = ensured.plan;
  const cut = cutPoint(base, minute);
  const kept = keepBefore(base, cut);
  if (DAY_MINUTES - cut < MIN_MINUTES) return { plan: base, usage, plans };

  const summary = await agentSummary(deps, world, agent, from);
  usage = addUsage(usage, summary.usage);
  const env = await loadEnvironment(deps, world.id);
  const places = knownPlaces(env, agent);
  const wake = Math.min(minuteOfDay(date, base.wakeUp), cut);
  const minItems = Math.max(
    1,
    Math.min(DAY_PLAN_ITEMS.min - kept.length, Math.floor((DAY_MINUTES - cut) / MIN_MINUTES)),
  );
  const completion = await deps.model.complete(
    buildDayPlanPrompt({
      agentName: agent.name,
      summary: summary.summary.text,
      date,
      weekday: weekdayOf(date),
      previousDay: await previousDayNotes(deps, { world, agent, at: from }, date),
      places,
      minItems,
      maxItems: Math.max(minItems, DAY_PLAN_ITEMS.max - kept.length),
      remainder: {
        from: clockTime(cut),
        wakeUp: clockTime(wake),
        reason,
        done: kept.map((item) => itemLine(date, item)),
      },
    }),
    { worldId: world.id, agentId: agent.id, operation: "plan.replan" },
  );
  usage = addUsage(usage, completion.usage);
  plans.push({ agentId: agent.id, date, replan: true, reason });
  const fresh = planItemsFromAnswer(completion.value.items, { date, from: cut, places });

  const key = planKey(world.id, agent.id, date);
  const plan = await writePlan(deps, key, (current) => {
    if (current === null || current.revision !== base.revision) {
      throw new ConflictError(
        `Cannot re-plan the day "${date}" of agent "${agent.id}": it was planned again meanwhile, retry`,
      );
    }
    // Decompositions cached since `base` was read are kept up to the same cut.
    return {
      ...current,
      wakeUp: timeAt(date, Math.min(minuteOfDay(date, current.wakeUp), cut)),
      items: [...keepBefore(current, cut), ...fresh],
      revision: current.revision + 1,
      replans: [...current.replans, { from, reason }],
    };
  }, { fence });
  usage = addUsage(
    usage,
    await rememberItems(deps, agent, { plan, items: fresh, at: from, fence }),
  );
  return { plan, usage, plans };
}

async function draftDayPlan(
  deps: Pick<Deps, "storage" | "model" | "embedder">,
  world: World,
  agent: Agent,
  date: string,
  known?: Environment | null,
): Promise<{ plan: DayPlan; usage: Usage }> {
  const at = planningTime(world, date);
  const summary = await agentSummary(deps, world, agent, at);
  const env = await environmentOf(deps, world, known);
  const places = knownPlaces(env, agent);
  const completion = await deps.model.complete(
    buildDayPlanPrompt({
      agentName: agent.name,
      summary: summary.summary.text,
      date,
      weekday: weekdayOf(date),
      previousDay: await previousDayNotes(deps, { world, agent, at }, date),
      places,
      minItems: DAY_PLAN_ITEMS.min,
      maxItems: DAY_PLAN_ITEMS.max,
      remainder: null,
    }),
    { worldId: world.id, agentId: agent.id, operation: "plan.day" },
  );
  const { wakeUp, items } = completion.value;
  // The schema keeps items in order; waking after the first item starts means waking then.
  const wake = Math.min(clockMinutes(wakeUp), clockMinutes(items[0].start));
  return {
    plan: {
      worldId: world.id,
      agentId: agent.id,
      date,
      wakeUp: timeAt(date, wake),
      items: planItemsFromAnswer(items, { date, from: wake, places }),
      revision: 1,
      madeAt: at,
      replans: [],
    },
    usage: addUsage(summary.usage, completion.usage),
  };
}

/** The stored plan of the day, made (and remembered) first when there is none. */
async function ensurePlan(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  world: World,
  agent: Agent,
  date: string,
  { fence, env }: FencedWrite & KnownEnvironment,
): Promise<{ plan: DayPlan; usage: Usage; plans: PlanMade[] }> {
  const key = planKey(world.id, agent.id, date);
  const stored = await deps.storage.documents.get<DayPlan>(key);
  if (stored) return { plan: stored.value, usage: emptyUsage(), plans: [] };
  const draft = await draftDayPlan(deps, world, agent, date, env);
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
interface KnownEnvironment {
  env?: Environment | null;
}

function environmentOf(
  deps: Pick<Deps, "storage">,
  world: World,
  known: Environment | null | undefined,
): Promise<Environment | null> {
  return known === undefined ? loadEnvironment(deps, world.id) : Promise.resolve(known);
}
