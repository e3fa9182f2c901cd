/** @module One tick of a world: the generic engine running the agent behaviour (Generative Agents §5). */
import { z } from "zod";
import type { Deps, TickMessage, TickQueue } from "../../ports/mod.ts";
import {
  type BudgetLimits,
  Clock,
  GameTime,
  NotFoundError,
  type TickBilling,
  UsageCounts,
  type WorldId,
} from "../../domain/mod.ts";
import {
  busy,
  handleTickMessage,
  inlineRunner,
  markerError,
  markerScope,
  type OpenTick,
  openTickKey,
  planTick,
  queueRunner,
  readOpenTick,
  runTick,
  TICK_DEADLINE_MS,
  type TickMarker,
  type TickRecord,
} from "../engine/mod.ts";
import { agentTickSystem } from "./agent_tick.ts";
import { AgentStepSummary } from "./step_summary.ts";
import { getWorld, spentWorldBudget } from "../world/mod.ts";
import { coastTickSystem } from "./coast_step.ts";

/** The response of `POST /v1/worlds/{world}/tick`; a repeated tick id answers the same. */
export const TickResult = z
  .object({
    tickId: z.string(),
    from: GameTime.meta({ description: "The game time before the tick" }),
    minutes: z.number().int(),
    clock: Clock.meta({ description: "The clock after the tick; agents acted at clock.now" }),
    steps: z.array(AgentStepSummary),
    usage: UsageCounts,
    events: z.number().int().meta({ description: "Events the tick appended to the world's log" }),
    budgetExhausted: z.boolean().optional().meta({
      description:
        "True when a budget was spent: the world's daily one as the tick started (then no agent called a model), or the world's or the calling key's before some agent's step (those steps have budgetExhausted too). Agents whose steps were skipped kept their plans",
    }),
  })
  .meta({ id: "TickResult" });
export type TickResult = z.infer<typeof TickResult>;

/** Options for {@linkcode tickWorld}. */
export interface TickWorldOptions {
  /** Game minutes to advance, 1–1440. @default the world's minutesPerTick */
  minutes?: number;
  /** The same id again returns the first result and does not advance. @default a new id */
  tickId?: string;
  /** Agents stepped at once. @default 8 */
  concurrency?: number;
  /** How long to wait while another tick of the world runs. @default 30000 (5000 queued) */
  waitMs?: number;
  /** With a queue: how long the tick may take before its stragglers are recorded as failed. */
  deadlineMs?: number;
  /** With a queue: tries per agent step before its failure is reported. @default 3 */
  maxAttempts?: number;
  /**
   * The UTC day of the wall clock (`YYYY-MM-DD`), to check the world's daily budget: when it is
   * spent the tick coasts (agents keep their plans, no model calls, one `budget.exhausted`
   * event per day). Each agent's step checks again, against this day's world budget and
   * `key`'s, and keeps its agent on its plan when one is spent. @default no budget check
   */
  day?: string;
  /**
   * The API key that asked for the tick, with its budget: kept in the tick's plan, so its
   * queued steps are checked against it and charged to it as the request would have been.
   * Needs `day`. @default none (the admin key, the scheduler)
   */
  key?: { id: string; budget?: BudgetLimits };
  /** From the scheduler: refused when the world is paused or manual. @default false */
  scheduled?: boolean;
  /**
   * The platform's queue the steps go through, each group of agents in its own invocation.
   * @default none: every agent is stepped in this call
   */
  queue?: TickQueue;
}

export { TICK_DEADLINE_MS };

/**
 * Advances a world by one tick and steps every agent at the new time: perceive what is new in
 * its area, react (talk, re-plan or carry on), act and move along its plan, reflect when due.
 * Idempotent by `tickId`; ticks of one world run one at a time, in order.
 *
 * @example
 * ```ts ignore
 * const result = await tickWorld(deps, worldId, { minutes: 10, tickId: "t-0001" });
 * result.clock.now; // ten game minutes later
 * ```
 * A paused world still ticks when asked: pausing stops the scheduler only.
 * @throws `invalid_request` (minutes outside 1–1440), `world_not_found`, `conflict` (a scheduled
 * tick of a paused or manual world, or
 * busy longer than `waitMs`), `store_unavailable`. A failing agent does not throw: its summary
 * has `error` and the log an `agent_error` event.
 * @see Generative Agents §5; README, "How time moves".
 */
export async function tickWorld(
  deps: Deps,
  worldId: WorldId,
  options: TickWorldOptions = {},
): Promise<TickResult> {
  const coasted = await coastIfSpent(deps, worldId, options);
  if (coasted) return coasted;
  const { queue, day: _day, key: _key, ...tick } = options;
  const runner = queue ? queueRunner(queue) : inlineRunner();
  return withMode(
    await runTick(deps, worldId, {
      ...tick,
      billing: billingOf(options),
      system: agentTickSystem(deps),
      runner,
    }),
  );
}

function billingOf(options: Pick<TickWorldOptions, "day" | "key">): TickBilling | undefined {
  if (options.day === undefined) return undefined;
  return options.key ? { day: options.day, key: options.key } : { day: options.day };
}

/**
 * The tick of a world whose daily budget is spent, or null when it is not (or `day` is unset).
 * It runs in this process, queue or not: with no model call in it there is nothing to fan out.
 * An agents' tick still open keeps the world (its steps would be lost if the clock moved).
 */
async function coastIfSpent(
  deps: Deps,
  worldId: WorldId,
  options: TickWorldOptions,
): Promise<TickResult | null> {
  if (options.day === undefined) return null;
  const spent = await spentWorldBudget(deps, await getWorld(deps, worldId), { day: options.day });
  if (!spent) return null;
  const { queue, day: _day, key: _key, ...tick } = options;
  if (queue) {
    const open = (await deps.storage.documents.get<OpenTick<unknown>>(openTickKey(worldId)))
      ?.value;
    // The open tick asked for again: it answers as planned (a tick without an id is new).
    if (open && open.tickId === options.tickId) return null;
    if (open && queue.now() < open.deadlineAt) throw busy(options.tickId ?? "(new)", worldId);
  }
  const record = await runTick(deps, worldId, { ...tick, system: coastTickSystem(deps, spent) });
  return { ...withMode(record), budgetExhausted: true };
}

/**
 * Worlds stored before clock modes existed read as cron worlds; a tick with a step that coasted
 * on a spent budget says so.
 */
function withMode(record: TickRecord<AgentStepSummary>): TickResult {
  const result = { ...record, clock: { ...record.clock, mode: record.clock.mode ?? "cron" } };
  return record.steps.some((s) => s.budgetExhausted)
    ? { ...result, budgetExhausted: true }
    : result;
}

/**
 * Plans a tick and enqueues its steps on the platform's queue without waiting for them.
 * A world whose budget is spent coasts in this process instead (see {@linkcode tickWorld}).
 * @returns `queued` with the tick id, or `done` with the result for a tick id already closed
 * (or a coasting tick).
 * @throws as {@linkcode tickWorld}; `conflict` at once while another tick of the world is open.
 */
export async function startTick(
  deps: Deps,
  worldId: WorldId,
  options: TickWorldOptions & { queue: TickQueue },
): Promise<
  { tickId: string; status: "queued" } | { tickId: string; status: "done"; result: TickResult }
> {
  const coasted = await coastIfSpent(deps, worldId, options);
  if (coasted) return { tickId: coasted.tickId, status: "done", result: coasted };
  const { queue, day: _day, key: _key, ...tick } = options;
  const planned = await planTick(deps, worldId, {
    ...tick,
    billing: billingOf(options),
    system: agentTickSystem(deps),
    runner: queueRunner(queue),
  });
  return planned.status === "done" ? { ...planned, result: withMode(planned.result) } : planned;
}

/** Runs one delivered tick message (the queue consumer of both entries calls this). */
export async function consumeTickMessage(
  deps: Deps,
  message: TickMessage,
  queue: TickQueue,
): Promise<void> {
  await handleTickMessage(deps, message, { system: agentTickSystem(deps), queue });
}

/**
 * The API key that started the tick a message belongs to (its plan keeps it), or undefined (the
 * admin key, the scheduler, a tick closed already): the consumer runs the message as that key,
 * so the key is charged for the calls of its queued steps and close as for its own request's.
 */
export async function tickKeyId(
  deps: Pick<Deps, "storage">,
  message: TickMessage,
): Promise<string | undefined> {
  return (await readOpenTick(deps, message.worldId, { tickId: message.tickId }))?.open.billing?.key
    ?.id;
}

/** The state of a tick id, as `GET /v1/worlds/{world}/ticks/{tickId}` answers it. */
export const TickStatus = z
  .object({
    tickId: z.string(),
    status: z.enum(["running", "done"]),
    result: TickResult.optional().meta({ description: "Set once the tick closed" }),
  })
  .meta({ id: "TickStatus" });
export type TickStatus = z.infer<typeof TickStatus>;

/**
 * Reads a tick id's state: running (planned, steps under way) or done with its result.
 * @throws `not_found` for an unknown tick id; the tick's own error when it failed.
 */
export async function readTick(
  deps: Deps,
  worldId: WorldId,
  tickId: string,
): Promise<TickStatus> {
  const marker = await deps.storage.idempotency.get<TickMarker<AgentStepSummary>>(
    markerScope(worldId),
    tickId,
  );
  if (marker?.status === "done") return { tickId, status: "done", result: withMode(marker.result) };
  if (marker?.status === "failed") throw markerError(marker);
  const open = await deps.storage.documents.get<OpenTick<unknown>>(openTickKey(worldId));
  if (marker?.status === "running" || open?.value.tickId === tickId) {
    return { tickId, status: "running" };
  }
  await getWorld(deps, worldId); // world_not_found first
  throw new NotFoundError("not_found", `Cannot find tick "${tickId}" of world "${worldId}"`);
}
