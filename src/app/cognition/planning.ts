/**
 * @module Planning: a day plan in broad strokes, decomposed just in time into hour chunks and
 * 5–60-minute actions, and re-planned from a moment when something comes up (Generative Agents
 * §4.3). The operations; the plan model is in domain/plan/, the model calls in mind/ (`day_plan.ts`,
 * `item_plan.ts`, `plan_actions.ts`), the day plan loaded or drafted in `_day_plan.ts`, storage in
 * `plan_store.ts`, the cached decompositions in `plan_decompose.ts`, the route-facing read in
 * `plan_requests.ts`.
 */
import {
  addUsage,
  type AgentContext,
  clockTime,
  ConflictError,
  cutPoint,
  DAY_MINUTES,
  DayPlan,
  emptyUsage,
  type GameAction,
  GameTime,
  innerVoiceDirective,
  interruptedItem,
  itemLine,
  keepBefore,
  MIN_MINUTES,
  minuteOfDay,
  planItemsFromAnswer,
  type PlanMade,
  PlannedAction,
  plannedAfter,
  remainderBounds,
  resumedInPlace,
  sleepAction,
  sleepLocation,
  timeAt,
  type Usage,
} from "../../domain/mod.ts";
import type { AgentTransaction } from "../agents/mod.ts";
import type { Deps, FencedWrite } from "../../ports/mod.ts";
import { planDay } from "../../mind/mod.ts";
import { type AgentSummary, agentSummary } from "./agent_summary.ts";
import { planKey, recordAction, rememberItems, writePlan } from "./plan_store.ts";
import {
  planningProfile,
  type ProfileAspect,
  withChunkActions,
  withItemChunks,
} from "./plan_decompose.ts";
import {
  dayPlanInputs,
  draftDayPlan,
  ensurePlan,
  environmentOf,
  type KnownEnvironment,
} from "./_day_plan.ts";

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
  const draft = await draftDayPlan(deps, { world, agent }, { date });
  const key = planKey(world.id, agent.id, date);
  const plan = await writePlan(deps, { key, fence }, (current) => ({
    ...draft.plan,
    revision: (current?.revision ?? 0) + 1,
  }));
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
 * in time: only the broad item in progress, into hour chunks and their actions together (one
 * `item_plan` call), or when it lasts an hour or less, into actions (one `actions` call); every
 * decomposition is cached in the plan
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
  { at, env: known, gameActions }: { at: GameTime } & KnownEnvironment & {
    /** The world's registered actions, when the caller has them (a tick does). */
    gameActions?: readonly GameAction[];
  },
): Promise<{ action: PlannedAction | null; usage: Usage; plans: PlanMade[] }> {
  const { world, agent, lease: fence } = tx;
  const d = { ...deps, storage: tx.storage };
  const date = at.slice(0, 10);
  const minute = Math.floor(minuteOfDay(date, at));
  let usage = emptyUsage();
  const plans: PlanMade[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const ensured = await ensurePlan(d, { world, agent }, { date, fence, env: known });
    usage = addUsage(usage, ensured.usage);
    plans.push(...ensured.plans);
    const env = await environmentOf(d, world, known);
    const index = ensured.plan.items.findIndex((item) =>
      minuteOfDay(date, item.start) <= minute && minute < minuteOfDay(date, item.end)
    );
    if (index === -1) {
      const action = sleepAction(ensured.plan, minute, sleepLocation(env, agent));
      await recordAction(d, { world, agent, at }, action);
      return { action, usage, plans };
    }
    let summary: AgentSummary | null = null;
    const profile = async (aspects: readonly ProfileAspect[]): Promise<string> => {
      if (summary === null) {
        const made = await agentSummary(d, { world, agent, at });
        usage = addUsage(usage, made.usage);
        summary = made.summary;
      }
      return planningProfile(agent, summary, aspects);
    };

    const item = await withItemChunks(d, { world, agent }, {
      plan: ensured.plan,
      index,
      env,
      profile,
      fence,
      gameActions,
    });
    usage = addUsage(usage, item.usage);
    if (item.plan === null) continue; // re-planned meanwhile: start over on the new plan
    const c = item.plan.items[index].chunks!.findIndex((chunk) =>
      minuteOfDay(date, chunk.start) <= minute && minute < minuteOfDay(date, chunk.end)
    );
    const chunk = await withChunkActions(d, { world, agent }, {
      plan: item.plan,
      index,
      chunk: c,
      env,
      profile,
      fence,
      gameActions,
    });
    usage = addUsage(usage, chunk.usage);
    if (chunk.plan === null) continue;
    const action = chunk.plan.items[index].chunks![c].actions!.find((a) =>
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
 * passed); cached decompositions before the cut stay, everything after it is replaced. The rest
 * is planned as a day of its own (`remainderBounds`: one item per three hours left at least, up
 * to 8, none over 6 hours), however many items the morning used, from the rest as planned
 * before; an item cut short that the new plan takes up again keeps its place, and a directive of the inner voice ("inner voice: I
 * should …") is given to the model as the agent's own resolution, to plan in its own words.
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
  const ensured = await ensurePlan(deps, { world, agent }, { date, fence });
  let usage = ensured.usage;
  const plans = ensured.plans;
  const base = ensured.plan;
  const cut = cutPoint(base, minute);
  const kept = keepBefore(base, cut);
  if (DAY_MINUTES - cut < MIN_MINUTES) return { plan: base, usage, plans };

  const inputs = await dayPlanInputs(deps, { world, agent, at: from }, { date, replan: true });
  const places = inputs.prompt.places;
  const interrupted = interruptedItem(base, cut);
  const placeOf = (area: string) => places.findIndex((p) => p.name === area) + 1 || null;
  const made = await planDay(deps, { world, agent }, {
    ...inputs.prompt,
    date,
    ...remainderBounds(cut),
    remainder: {
      from: clockTime(cut),
      wakeUp: clockTime(Math.min(minuteOfDay(date, base.wakeUp), cut)),
      reason,
      directive: innerVoiceDirective(reason),
      done: kept.map((item) => itemLine(date, item)),
      interrupted: interrupted === undefined ? null : {
        description: interrupted.description,
        place: placeOf(interrupted.location),
        until: clockTime(minuteOfDay(date, interrupted.end)),
      },
      planned: plannedAfter(base, cut).map((item) => itemLine(date, item, " at ")),
    },
  });
  usage = addUsage(usage, inputs.usage, made.usage);
  plans.push({ agentId: agent.id, date, replan: true, reason });
  const fresh = resumedInPlace(
    planItemsFromAnswer(made.value.items, { date, from: cut, places, goals: inputs.goals }),
    interrupted,
  );

  const key = planKey(world.id, agent.id, date);
  const plan = await writePlan(deps, { key, fence }, (current) => {
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
  });
  usage = addUsage(
    usage,
    await rememberItems(deps, agent, { plan, items: fresh, at: from, fence }),
  );
  return { plan, usage, plans };
}
