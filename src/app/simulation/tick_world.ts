/** @module One tick of a world: the generic engine running the agent behaviour (Generative Agents §5). */
import { z } from "zod";
import type { Deps, TickMessage, TickQueue } from "../../ports/mod.ts";
import { Clock, GameTime, NotFoundError, UsageCounts, type WorldId } from "../../domain/mod.ts";
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
        "True when the world's daily budget was spent: agents kept their plans and no model was called",
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
   * event per day). @default no budget check
   */
  day?: string;
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
  const { queue, ...tick } = options;
  const runner = queue ? queueRunner(queue) : inlineRunner();
  return withMode(await runTick(deps, worldId, { ...tick, system: agentTickSystem(deps), runner }));
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
  const { queue, ...tick } = options;
  if (queue) {
    const open = (await deps.storage.documents.get<OpenTick<unknown>>(openTickKey(worldId)))
      ?.value;
    if (open?.tickId === options.tickId) return null;
    if (open && queue.now() < open.deadlineAt) throw busy(options.tickId ?? "(new)", worldId);
  }
  const record = await runTick(deps, worldId, { ...tick, system: coastTickSystem(deps, spent) });
  return { ...withMode(record), budgetExhausted: true };
}

/** Worlds stored before clock modes existed read as cron worlds. */
function withMode(record: TickRecord<AgentStepSummary>): TickResult {
  return { ...record, clock: { ...record.clock, mode: record.clock.mode ?? "cron" } };
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
  const { queue, ...tick } = options;
  const planned = await planTick(deps, worldId, {
    ...tick,
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
