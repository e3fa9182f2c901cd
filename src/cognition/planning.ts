/**
 * @module Planning: a day plan in broad strokes, decomposed just in time into hour chunks and
 * 5–60-minute actions, and re-planned from a moment when something comes up (SPEC §5).
 */
import { z } from "zod";
import { type Agent, agentKey, loadAgent } from "../agents/agent.ts";
import { withAgentLock } from "../agents/agent_lock.ts";
import type { Deps } from "../deps.ts";
import { ConflictError, NotFoundError, SimulacraError } from "../errors.ts";
import type { AgentScope, WorldId } from "../ids.ts";
import { type NewMemory, prepareMemories, writeMemories } from "../memory/ingest.ts";
import { addUsage, emptyUsage, type Usage } from "../model/usage.ts";
import type { DocumentKey } from "../ports/document_store.ts";
import { clipLine, PROFILE_LINE_CHARS } from "../prompts/_data_block.ts";
import { buildActionsPrompt } from "../prompts/actions.ts";
import { buildDayPlanPrompt } from "../prompts/day_plan.ts";
import { buildHourPlanPrompt } from "../prompts/hour_plan.ts";
import { addMinutes, gameMinutes, GameTime } from "../time/game_time.ts";
import { clockMinutes, clockTime } from "../time/time_of_day.ts";
import { type Environment, loadEnvironment } from "../world/environment.ts";
import { getWorld, type World } from "../world/world.ts";
import { type AgentSummary, agentSummary, identityLine } from "./agent_summary.ts";
import { currentAreaOf, knownPlaces, locationChoices, sleepLocation } from "./_plan_places.ts";
import { fitSpans, MIN_MINUTES, splitEven } from "./_plan_spans.ts";

/** A calendar date, `YYYY-MM-DD`. */
export const PlanDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "Use a date as YYYY-MM-DD, e.g. 2023-02-13")
  .refine((d) => GameTime.safeParse(`${d}T00:00:00`).success, "Not a real calendar date")
  .meta({ id: "PlanDate", example: "2023-02-13" });
export type PlanDate = z.infer<typeof PlanDate>;

/** One action of 5–60 minutes, where it happens and how a game UI can show it. */
export const PlannedAction = z
  .object({
    start: GameTime,
    end: GameTime,
    description: z.string(),
    location: z.string().meta({
      description:
        "Area:Sub-area:Object in the agent's known environment; in a world without an environment, the agent's current location or \"unknown\"",
    }),
    emoji: z.string().meta({ description: "1–3 emoji", example: "☕" }),
  })
  .meta({ id: "PlannedAction" });
export type PlannedAction = z.infer<typeof PlannedAction>;

/** An hour-long chunk of a broad item; `actions` is null until the chunk is decomposed. */
export const HourChunk = z
  .object({
    start: GameTime,
    end: GameTime,
    description: z.string(),
    actions: z.array(PlannedAction).nullable(),
  })
  .meta({ id: "HourChunk" });
export type HourChunk = z.infer<typeof HourChunk>;

/** A broad item of a day plan; `chunks` is null until the item is decomposed. */
export const PlanItem = z
  .object({
    start: GameTime,
    end: GameTime,
    description: z.string(),
    /** An area of the environment (or free text in a world without one). */
    location: z.string(),
    chunks: z.array(HourChunk).nullable(),
  })
  .meta({ id: "PlanItem" });
export type PlanItem = z.infer<typeof PlanItem>;

/** A day plan as stored: broad items in order, contiguous from waking up, with cached decompositions. */
export const DayPlan = z
  .object({
    worldId: z.string(),
    agentId: z.string(),
    date: PlanDate,
    wakeUp: GameTime,
    items: z.array(PlanItem),
    /** Grows by one each time the plan is made again or re-planned. */
    revision: z.number().int().min(1),
    madeAt: GameTime,
    replans: z.array(z.object({ from: GameTime, reason: z.string() })),
  })
  .meta({ id: "DayPlan" });
export type DayPlan = z.infer<typeof DayPlan>;

/** Broad items of a day plan (paper: five to eight). */
export const DAY_PLAN_ITEMS = { min: 5, max: 8 } as const;

/**
 * Importance of every `plan` memory, set without a model call. Plans are the agent's own
 * intentions and are written several times a day (each plan and re-plan); rating them would add
 * a call each time for little gain. 5 is the middle of the scale, so plans neither crowd out nor
 * sink below what the agent witnesses in retrieval. They do not count towards the reflection
 * trigger, which sums the importance of perceived events (SPEC §4).
 */
export const PLAN_IMPORTANCE = 5;

/** The longest hour chunk and the longest action, in minutes. */
const MAX_MINUTES = 60;
const DAY_MINUTES = 1440;
const SLEEPING = { description: "sleeping", emoji: "😴" } as const;
/** How long recording an action waits for a busy agent before skipping the record. */
const RECORD_WAIT_MS = 2_000;

const UsageBody = z.object({
  calls: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
});

/** The body of `POST …/agents/{agent}/plan`. */
export const PlanInput = z
  .strictObject({
    date: PlanDate.optional().meta({
      description: "Default: the date of `from`, else of the world clock",
    }),
    from: GameTime.optional().meta({
      description: "Keep the day up to this time and plan the rest again",
    }),
    reason: z.string().trim().min(1).max(500).optional().meta({
      description: 'With `from`: what came up, e.g. "talked with Maria about the party"',
    }),
  })
  .meta({ id: "PlanInput", example: { date: "2023-02-13" } });
export type PlanInput = z.infer<typeof PlanInput>;

/** The query of `GET …/plan`. */
export const PlanQuery = z.strictObject({
  date: PlanDate.optional().meta({ description: "Default: the date of the world clock" }),
});

/** The query of `GET …/action`. */
export const ActionQuery = z.strictObject({
  at: GameTime.optional().meta({ description: "Default: the world clock" }),
});

/** A day plan as the API shows it. */
export const PlanView = z
  .object({
    date: PlanDate,
    wakeUp: GameTime,
    revision: z.number().int(),
    items: z.array(z.object({
      start: GameTime,
      end: GameTime,
      description: z.string(),
      location: z.string(),
      emoji: z.string().optional(),
      chunks: z.array(HourChunk).nullable().meta({
        description:
          "The item decomposed into hour chunks and 5–60-minute actions, as far as it has been (null until the item starts)",
      }),
    })),
  })
  .meta({ id: "PlanView" });
export type PlanView = z.infer<typeof PlanView>;

/** The response of `POST …/plan`. */
export const PlanResult = PlanView.extend({ usage: UsageBody }).meta({ id: "PlanResult" });
export type PlanResult = z.infer<typeof PlanResult>;

/** The response of `GET …/action`. */
export const ActionResult = z
  .object({ action: PlannedAction, usage: UsageBody })
  .meta({ id: "ActionResult" });
export type ActionResult = z.infer<typeof ActionResult>;

// ---------------------------------------------------------------------------------------------
// Public operations

/**
 * Makes the agent's plan for `date` in broad strokes and stores it (replacing any plan of that
 * date): one `day_plan` call from the agent summary (cached: no call) and a summary of the
 * previous day (its plan items and recent reflections). Items are ordered, contiguous from the
 * wake-up time and each placed in an area the agent knows. Each item is also remembered as a
 * `plan` memory (importance {@linkcode PLAN_IMPORTANCE}, one embedding call).
 * @throws `model_*`, `store_unavailable`, `conflict` when concurrent writes keep winning.
 * @see SPEC §5 "Daily plan in broad strokes"; Park et al. 2023 §4.3.
 */
export async function makeDayPlan(
  deps: Deps,
  world: World,
  agent: Agent,
  date: string,
): Promise<{ plan: DayPlan; usage: Usage }> {
  const draft = await draftDayPlan(deps, world, agent, date);
  const key = planKey(world.id, agent.id, date);
  const plan = await writePlan(deps, key, (current) => ({
    ...draft.plan,
    revision: (current?.revision ?? 0) + 1,
  }));
  const remembered = await rememberItems(deps, agent, plan, plan.items, plan.madeAt);
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
 * Also records the action as `agent.action` and its location as `agent.location`, under the
 * agent's lock (do not call this while holding it), unless `at` is earlier than the world clock
 * (looking back does not move the agent) or the agent stays busy (the record is best effort).
 * @throws `model_*`, `store_unavailable`, `conflict` when the plan keeps changing meanwhile.
 * @see SPEC §5 "Decompose top-down … just in time"; Park et al. 2023 §4.3 and App. A (plans are
 * decomposed just in time because they change).
 */
export async function currentAction(
  deps: Deps,
  world: World,
  agent: Agent,
  at: GameTime,
): Promise<{ action: PlannedAction | null; usage: Usage }> {
  const date = at.slice(0, 10);
  const minute = Math.floor(minuteOfDay(date, at));
  const key = planKey(world.id, agent.id, date);
  let usage = emptyUsage();
  for (let attempt = 0; attempt < 3; attempt++) {
    const ensured = await ensurePlan(deps, world, agent, date);
    usage = addUsage(usage, ensured.usage);
    let plan = ensured.plan;
    const env = await loadEnvironment(deps, world.id);
    const index = plan.items.findIndex((item) =>
      minuteOfDay(date, item.start) <= minute && minute < minuteOfDay(date, item.end)
    );
    if (index === -1) {
      const action = sleepAction(plan, minute, sleepLocation(env, agent));
      await recordAction(deps, world, agent, at, action);
      return { action, usage };
    }
    let summary: AgentSummary | null = null;
    const summaryOf = async (): Promise<AgentSummary> => {
      if (summary === null) {
        const made = await agentSummary(deps, world, agent, at);
        usage = addUsage(usage, made.usage);
        summary = made.summary;
      }
      return summary;
    };

    if (plan.items[index].chunks === null) {
      const made = await decomposeItem(
        deps,
        world,
        agent,
        plan,
        index,
        planningProfile(agent, await summaryOf(), ["core", "occupation"]),
      );
      usage = addUsage(usage, made.usage);
      const cached = await cacheDecomposition(
        deps,
        key,
        plan.revision,
        (p) => p.items[index].chunks === null ? withItem(p, index, { chunks: made.chunks }) : null,
      );
      if (cached === null) continue; // re-planned meanwhile: start over on the new plan
      plan = cached;
    }
    const chunks = plan.items[index].chunks!;
    const c = chunks.findIndex((chunk) =>
      minuteOfDay(date, chunk.start) <= minute && minute < minuteOfDay(date, chunk.end)
    );
    if (chunks[c].actions === null) {
      const made = await decomposeChunk(
        deps,
        world,
        agent,
        env,
        plan,
        index,
        c,
        planningProfile(agent, await summaryOf(), ["occupation"]),
      );
      usage = addUsage(usage, made.usage);
      const cached = await cacheDecomposition(
        deps,
        key,
        plan.revision,
        (p) =>
          p.items[index].chunks?.[c]?.actions === null
            ? withChunk(p, index, c, made.actions)
            : null,
      );
      if (cached === null) continue;
      plan = cached;
    }
    const action = plan.items[index].chunks![c].actions!.find((a) =>
      minuteOfDay(date, a.start) <= minute && minute < minuteOfDay(date, a.end)
    )!;
    await recordAction(deps, world, agent, at, action);
    return { action, usage };
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
 * With less than 5 minutes of the day left, nothing changes.
 * @throws `model_*`, `store_unavailable`, `conflict` when another re-plan of the same day wins.
 * @see SPEC §5 "A reaction regenerates the plan from now"; Park et al. 2023 §4.3.
 */
export async function replanFrom(
  deps: Deps,
  world: World,
  agent: Agent,
  from: GameTime,
  reason: string,
): Promise<{ plan: DayPlan; usage: Usage }> {
  const date = from.slice(0, 10);
  const minute = Math.floor(minuteOfDay(date, from));
  const ensured = await ensurePlan(deps, world, agent, date);
  let usage = ensured.usage;
  const base = ensured.plan;
  const cut = cutPoint(base, minute);
  const kept = keepBefore(base, cut);
  if (DAY_MINUTES - cut < MIN_MINUTES) return { plan: base, usage };

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
      previousDay: await previousDayNotes(deps, world, agent, date, from),
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
  const fresh = fitSpans(
    completion.value.items.map((it) => ({
      start: clockMinutes(it.start),
      minutes: it.durationMinutes,
      value: it,
    })),
    cut,
    DAY_MINUTES,
    { cover: false, maxMinutes: DAY_MINUTES },
  ).map((s): PlanItem => ({
    start: timeAt(date, s.start),
    end: timeAt(date, s.end),
    description: s.value.description.trim(),
    location: places[s.value.place - 1].name,
    chunks: null,
  }));

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
  });
  usage = addUsage(usage, await rememberItems(deps, agent, plan, fresh, from));
  return { plan, usage };
}

// ---------------------------------------------------------------------------------------------
// Route-facing operations

/**
 * `POST …/plan`: makes the day plan of `date` (default: the date of `from`, else of the world
 * clock), or with `from` re-plans the rest of that day.
 * @throws `world_not_found`, `agent_not_found`, `unprocessable` (date outside the calendar, or
 * `from` not on `date`), `model_*`, `store_unavailable`, `conflict`.
 */
export async function requestPlan(
  deps: Deps,
  scope: AgentScope,
  input: PlanInput,
): Promise<PlanResult> {
  const world = await getWorld(deps, scope.worldId);
  const agent = (await loadAgent(deps, scope)).value;
  const date = input.date ?? input.from?.slice(0, 10) ?? world.clock.now.slice(0, 10);
  if (input.from !== undefined && input.from.slice(0, 10) !== date) {
    throw new SimulacraError(
      "unprocessable",
      `Cannot re-plan from "${input.from}" on "${date}": the time is on another day: send a "from" on "${date}" or leave out "date"`,
    );
  }
  checkCalendar(world, agent, date);
  const made = input.from === undefined
    ? await makeDayPlan(deps, world, agent, date)
    : await replanFrom(
      deps,
      world,
      agent,
      input.from,
      input.reason ?? "something came up that changes the rest of the day",
    );
  return { ...planView(made.plan), usage: made.usage };
}

/**
 * `GET …/plan`: the stored plan of `date` (default: the date of the world clock).
 * @throws `world_not_found`, `agent_not_found`, `unprocessable` (outside the calendar),
 * `not_found` when that day has no plan yet.
 */
export async function readPlan(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  date?: string,
): Promise<PlanView> {
  const world = await getWorld(deps, scope.worldId);
  const agent = (await loadAgent(deps, scope)).value;
  const day = date ?? world.clock.now.slice(0, 10);
  checkCalendar(world, agent, day);
  const doc = await deps.storage.documents.get<DayPlan>(planKey(world.id, agent.id, day));
  if (!doc) {
    throw new NotFoundError(
      "not_found",
      `Cannot find a plan of agent "${agent.id}" for "${day}": make one with POST /v1/worlds/${world.id}/agents/${agent.id}/plan`,
    );
  }
  return planView(doc.value);
}

/**
 * `GET …/action`: what the agent does at `at` (default: the world clock); see
 * {@linkcode currentAction}.
 * @throws `world_not_found`, `agent_not_found`, `unprocessable` (outside the calendar),
 * `model_*`, `store_unavailable`, `conflict`.
 */
export async function actionAt(
  deps: Deps,
  scope: AgentScope,
  at?: GameTime,
): Promise<ActionResult> {
  const world = await getWorld(deps, scope.worldId);
  const agent = (await loadAgent(deps, scope)).value;
  const time = at ?? world.clock.now;
  checkCalendar(world, agent, time.slice(0, 10));
  const { action, usage } = await currentAction(deps, world, agent, time);
  return { action: action!, usage };
}

/**
 * Checks that a day lies in the world's calendar for this agent: not before the agent's
 * creation date (the World record keeps no start time; an agent created with the world has its
 * start date, and no agent plans a day before it existed) and at most 366 days after the world
 * clock's date (a game engine may run ahead of an untouched clock, within a year).
 * @throws `unprocessable`
 */
export function checkCalendar(world: World, agent: Agent, date: string): void {
  const first = agent.createdAt.slice(0, 10);
  const last = addDays(world.clock.now.slice(0, 10), 366);
  if (date < first || date > last) {
    throw new SimulacraError(
      "unprocessable",
      `Cannot plan "${date}" for agent "${agent.id}": the world's calendar for it runs from "${first}" to "${last}": pick a day in that range`,
      { details: { first, last } },
    );
  }
}

/** A stored plan as the API shows it. */
export function planView(plan: DayPlan): PlanView {
  return {
    date: plan.date,
    wakeUp: plan.wakeUp,
    revision: plan.revision,
    items: plan.items.map(({ start, end, description, location, chunks }) => ({
      start,
      end,
      description,
      location,
      chunks,
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Making and storing plans

function planKey(worldId: string, agentId: string, date: string): DocumentKey {
  return { collection: "plans", scope: worldId, id: `${agentId}:${date}` };
}

async function draftDayPlan(
  deps: Deps,
  world: World,
  agent: Agent,
  date: string,
): Promise<{ plan: DayPlan; usage: Usage }> {
  const at = planningTime(world, date);
  const summary = await agentSummary(deps, world, agent, at);
  const env = await loadEnvironment(deps, world.id);
  const places = knownPlaces(env, agent);
  const completion = await deps.model.complete(
    buildDayPlanPrompt({
      agentName: agent.name,
      summary: summary.summary.text,
      date,
      weekday: weekdayOf(date),
      previousDay: await previousDayNotes(deps, world, agent, date, at),
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
  const spans = fitSpans(
    items.map((it) => ({ start: clockMinutes(it.start), minutes: it.durationMinutes, value: it })),
    wake,
    DAY_MINUTES,
    { cover: false, maxMinutes: DAY_MINUTES },
  );
  return {
    plan: {
      worldId: world.id,
      agentId: agent.id,
      date,
      wakeUp: timeAt(date, wake),
      items: spans.map((s) => ({
        start: timeAt(date, s.start),
        end: timeAt(date, s.end),
        description: s.value.description.trim(),
        location: places[s.value.place - 1].name,
        chunks: null,
      })),
      revision: 1,
      madeAt: at,
      replans: [],
    },
    usage: addUsage(summary.usage, completion.usage),
  };
}

/** The stored plan of the day, made (and remembered) first when there is none. */
async function ensurePlan(
  deps: Deps,
  world: World,
  agent: Agent,
  date: string,
): Promise<{ plan: DayPlan; usage: Usage }> {
  const key = planKey(world.id, agent.id, date);
  const stored = await deps.storage.documents.get<DayPlan>(key);
  if (stored) return { plan: stored.value, usage: emptyUsage() };
  const draft = await draftDayPlan(deps, world, agent, date);
  try {
    await deps.storage.documents.create(key, draft.plan);
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    // A concurrent request made the plan first: use it, and forget ours.
    const winner = await deps.storage.documents.get<DayPlan>(key);
    if (winner) return { plan: winner.value, usage: draft.usage };
    throw err;
  }
  const remembered = await rememberItems(
    deps,
    agent,
    draft.plan,
    draft.plan.items,
    draft.plan.madeAt,
  );
  return { plan: draft.plan, usage: addUsage(draft.usage, remembered) };
}

/** Creates or replaces the plan document with `next(current)`, retrying lost races. */
async function writePlan(
  deps: Pick<Deps, "storage">,
  key: DocumentKey,
  next: (current: DayPlan | null) => DayPlan,
): Promise<DayPlan> {
  const docs = deps.storage.documents;
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await docs.get<DayPlan>(key);
    const plan = next(current?.value ?? null);
    if (current) {
      if (await docs.replace(key, plan, current.version)) return plan;
      continue;
    }
    try {
      await docs.create(key, plan);
      return plan;
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
    }
  }
  throw new ConflictError(
    `Cannot store the plan "${key.id}": other writes kept changing it, retry shortly`,
  );
}

/**
 * Stores a decomposition in the plan of the same revision. `apply` returns null when the plan
 * already has it (a concurrent request cached its own): that one is kept. Returns the stored
 * plan, or null when the plan was re-planned meanwhile.
 */
async function cacheDecomposition(
  deps: Pick<Deps, "storage">,
  key: DocumentKey,
  revision: number,
  apply: (plan: DayPlan) => DayPlan | null,
): Promise<DayPlan | null> {
  const docs = deps.storage.documents;
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await docs.get<DayPlan>(key);
    if (!current || current.value.revision !== revision) return null;
    const next = apply(current.value);
    if (next === null) return current.value;
    if (await docs.replace(key, next, current.version)) return next;
  }
  throw new ConflictError(
    `Cannot store the plan "${key.id}": other writes kept changing it, retry shortly`,
  );
}

/** Remembers broad items as `plan` memories: importance fixed, one embedding call, no completion. */
async function rememberItems(
  deps: Deps,
  agent: Agent,
  plan: DayPlan,
  items: readonly PlanItem[],
  at: GameTime,
): Promise<Usage> {
  if (items.length === 0) return emptyUsage();
  const memories: NewMemory[] = items.map((item) => ({
    description: `${agent.name}'s plan for ${weekdayOf(plan.date)} ${plan.date}, ${
      itemLine(plan.date, item, " at ")
    }`,
    kind: "plan",
    provenance: "self",
    at,
    importance: PLAN_IMPORTANCE,
    location: item.location,
  }));
  const prepared = await prepareMemories(deps, agent, memories);
  await writeMemories(deps, { worldId: plan.worldId as WorldId, agentId: agent.id }, prepared);
  return prepared.usage;
}

/** The previous day's plan items and the latest reflections before `at`. */
async function previousDayNotes(
  deps: Pick<Deps, "storage">,
  world: World,
  agent: Agent,
  date: string,
  at: GameTime,
): Promise<string[]> {
  const yesterday = addDays(date, -1);
  const previous = await deps.storage.documents.get<DayPlan>(
    planKey(world.id, agent.id, yesterday),
  );
  const reflections = await deps.storage.memories.list(
    { worldId: world.id as WorldId, agentId: agent.id },
    { kind: "reflection", limit: 10, order: "desc" },
  );
  return [
    ...(previous?.value.items.map((item) => `${yesterday} ${itemLine(yesterday, item)}`) ?? []),
    ...reflections.memories.filter((m) => m.createdAt <= at).slice(0, 3).map((m) => m.description),
  ];
}

// ---------------------------------------------------------------------------------------------
// Decomposing just in time

async function decomposeItem(
  deps: Deps,
  world: World,
  agent: Agent,
  plan: DayPlan,
  index: number,
  profile: string,
): Promise<{ chunks: HourChunk[]; usage: Usage }> {
  const item = plan.items[index];
  const lo = minuteOfDay(plan.date, item.start);
  const hi = minuteOfDay(plan.date, item.end);
  const completion = await deps.model.complete(
    buildHourPlanPrompt({
      agentName: agent.name,
      summary: profile,
      date: plan.date,
      item: {
        start: clockTime(lo),
        end: clockTime(hi),
        description: item.description,
        place: item.location,
      },
      before: plan.items[index - 1]?.description ?? null,
      after: plan.items[index + 1]?.description ?? null,
    }),
    { worldId: world.id, agentId: agent.id, operation: "plan.hour" },
  );
  const spans = fitSpans(
    completion.value.chunks.map((c) => ({
      start: clockMinutes(c.start),
      minutes: c.durationMinutes,
      value: c.description.trim(),
    })),
    lo,
    hi,
    { cover: true, maxMinutes: MAX_MINUTES },
  );
  const chunks = (spans.length > 0 ? spans : splitEven(lo, hi, MAX_MINUTES, item.description))
    .map((s): HourChunk => ({
      start: timeAt(plan.date, s.start),
      end: timeAt(plan.date, s.end),
      description: s.value,
      actions: null,
    }));
  return { chunks, usage: completion.usage };
}

/**
 * A planning profile: who the agent is (name, age, traits) and the summary's aspects that level
 * of the plan needs. Below the day plan, the broad item already fixes what the agent does and
 * why, so how it feels about recent progress adds little; the hour plan keeps the core
 * characteristics, which colour how an item is spent, and the actions (the most frequent
 * planning call) only what the agent does day to day.
 */
function planningProfile(
  agent: Agent,
  summary: AgentSummary,
  aspects: readonly ("core" | "occupation")[],
): string {
  return [identityLine(agent), ...aspects.map((a) => clipLine(summary[a], PROFILE_LINE_CHARS))]
    .join("\n");
}

async function decomposeChunk(
  deps: Deps,
  world: World,
  agent: Agent,
  env: Environment | null,
  plan: DayPlan,
  index: number,
  c: number,
  profile: string,
): Promise<{ actions: PlannedAction[]; usage: Usage }> {
  const item = plan.items[index];
  const chunk = item.chunks![c];
  const lo = minuteOfDay(plan.date, chunk.start);
  const hi = minuteOfDay(plan.date, chunk.end);
  const locations = locationChoices(env, agent, item.location);
  const currentArea = env ? currentAreaOf(env, agent)?.name ?? null : null;
  const completion = await deps.model.complete(
    buildActionsPrompt({
      agentName: agent.name,
      summary: profile,
      date: plan.date,
      item: item.description,
      chunk: { start: clockTime(lo), end: clockTime(hi), description: chunk.description },
      locations,
      currentLocation: agent.location,
      currentArea,
      plannedArea: item.location,
    }),
    { worldId: world.id, agentId: agent.id, operation: "plan.actions" },
  );
  const spans = fitSpans(
    completion.value.actions.map((a) => ({
      start: clockMinutes(a.start),
      minutes: a.durationMinutes,
      value: {
        description: a.description.trim(),
        location: locations[a.location - 1].path,
        emoji: a.emoji.replace(/\s+/g, ""),
      },
    })),
    lo,
    hi,
    { cover: true, maxMinutes: MAX_MINUTES },
  );
  const fallback = { description: chunk.description, location: locations[0].path, emoji: "🙂" };
  const actions = (spans.length > 0 ? spans : splitEven(lo, hi, MAX_MINUTES, fallback)).map((
    s,
  ): PlannedAction => ({
    start: timeAt(plan.date, s.start),
    end: timeAt(plan.date, s.end),
    ...s.value,
  }));
  return { actions, usage: completion.usage };
}

/** The sleep piece around `minute`: the gap in the plan holding it, cut into pieces of at most an hour. */
function sleepAction(plan: DayPlan, minute: number, location: string): PlannedAction {
  const bounds = plan.items.map((item) => [
    minuteOfDay(plan.date, item.start),
    minuteOfDay(plan.date, item.end),
  ]);
  const from = Math.max(0, ...bounds.map(([, end]) => end).filter((end) => end <= minute));
  const until = Math.min(DAY_MINUTES, ...bounds.map(([start]) => start).filter((s) => s > minute));
  const piece = splitEven(from, until, MAX_MINUTES, null).find((s) =>
    s.start <= minute && minute < s.end
  )!;
  return {
    start: timeAt(plan.date, piece.start),
    end: timeAt(plan.date, piece.end),
    ...SLEEPING,
    location,
  };
}

/** Records the action on the agent document, under its lock; best effort (see currentAction). */
async function recordAction(
  deps: Deps,
  world: World,
  agent: Agent,
  at: GameTime,
  action: PlannedAction,
): Promise<void> {
  if (gameMinutes(at) < gameMinutes(world.clock.now)) return;
  const scope: AgentScope = { worldId: world.id as WorldId, agentId: agent.id };
  try {
    await withAgentLock(deps, scope, async () => {
      const doc = await loadAgent(deps, scope);
      if (doc.value.action === action.description && doc.value.location === action.location) {
        return;
      }
      const next = { ...doc.value, action: action.description, location: action.location };
      await deps.storage.documents.replace(agentKey(scope), next, doc.version);
    }, { waitMs: RECORD_WAIT_MS });
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Times

function minuteOfDay(date: string, time: string): number {
  return gameMinutes(time) - gameMinutes(`${date}T00:00:00`);
}

function timeAt(date: string, minute: number): GameTime {
  return addMinutes(`${date}T00:00:00`, minute);
}

function addDays(date: string, days: number): string {
  return addMinutes(`${date}T00:00:00`, days * DAY_MINUTES).slice(0, 10);
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

function weekdayOf(date: string): string {
  const [y, m, d] = date.split("-").map(Number);
  return WEEKDAYS[new Date(Date.UTC(y, m - 1, d)).getUTCDay()];
}

/** When the agent plans a day: now when the world clock is on that day, else at its start. */
function planningTime(world: World, date: string): GameTime {
  return world.clock.now.slice(0, 10) === date ? world.clock.now : timeAt(date, 0);
}

/** "07:00–08:00 wake up and get ready" (with `at`: "… at The Lin family's house"). */
function itemLine(date: string, item: PlanItem, at?: string): string {
  const span = `${clockTime(minuteOfDay(date, item.start))}–${
    clockTime(minuteOfDay(date, item.end))
  }`;
  return at === undefined
    ? `${span} ${item.description}`
    : `${span}${at}${item.location}: ${item.description}`;
}

function withItem(plan: DayPlan, index: number, change: Partial<PlanItem>): DayPlan {
  return {
    ...plan,
    items: plan.items.map((item, i) => (i === index ? { ...item, ...change } : item)),
  };
}

function withChunk(plan: DayPlan, index: number, c: number, actions: PlannedAction[]): DayPlan {
  const chunks = plan.items[index].chunks!.map((
    chunk,
    j,
  ) => (j === c ? { ...chunk, actions } : chunk));
  return withItem(plan, index, { chunks });
}

// ---------------------------------------------------------------------------------------------
// Re-planning

/**
 * Where a re-plan from `minute` cuts the day: `minute`, or the start of the item, chunk or action
 * in progress when less than 5 minutes of it have passed, so every kept piece lasts at least 5
 * minutes.
 */
function cutPoint(plan: DayPlan, minute: number): number {
  const m = (t: string) => minuteOfDay(plan.date, t);
  const holding = <T extends { start: string; end: string }>(list: readonly T[] | null) =>
    list?.find((s) => m(s.start) < minute && minute < m(s.end));
  const item = holding(plan.items);
  const chunk = holding(item?.chunks ?? null);
  for (const piece of [item, chunk, holding(chunk?.actions ?? null)]) {
    if (piece && minute - m(piece.start) < MIN_MINUTES) return m(piece.start);
  }
  return minute;
}

/**
 * The items before `cut`. Pieces that run past it (item, chunk, action) end at it; cached
 * decompositions after it are dropped.
 */
function keepBefore(plan: DayPlan, cut: number): PlanItem[] {
  const m = (t: string) => minuteOfDay(plan.date, t);
  const end = timeAt(plan.date, cut);
  const clip = <T extends { start: string; end: string }>(list: readonly T[]) =>
    list.filter((s) => m(s.start) < cut).map((s) => (m(s.end) > cut ? { ...s, end } : s));
  return clip(plan.items).map((item) =>
    item.chunks === null ? item : {
      ...item,
      chunks: clip(item.chunks).map((chunk) =>
        chunk.actions === null ? chunk : { ...chunk, actions: clip(chunk.actions) }
      ),
    }
  );
}
