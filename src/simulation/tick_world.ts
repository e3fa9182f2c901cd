/** @module One tick of a world: the generic engine running the agent behaviour (SPEC §6). */
import { z } from "zod";
import type { Deps } from "../deps.ts";
import type { WorldId } from "../ids.ts";
import { runTick } from "../engine/tick_engine.ts";
import { UsageCounts } from "../model/usage.ts";
import { GameTime } from "../time/game_time.ts";
import { AgentStepSummary, agentTickSystem } from "./agent_step.ts";
import { Clock, getWorld } from "../world/world.ts";
import { spentWorldBudget } from "../world/budget.ts";
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
  /** How long to wait while another tick of the world runs. @default 30000 */
  waitMs?: number;
  /**
   * The UTC day of the wall clock (`YYYY-MM-DD`), to check the world's daily budget: when it is
   * spent the tick coasts (agents keep their plans, no model calls, one `budget.exhausted`
   * event per day). @default no budget check
   */
  day?: string;
  /** From the scheduler: refused when the world is paused or manual. @default false */
  scheduled?: boolean;
}

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
 * @see SPEC §6 "Clock"; API.md "POST /v1/worlds/{world}/tick".
 */
export async function tickWorld(
  deps: Deps,
  worldId: WorldId,
  options: TickWorldOptions = {},
): Promise<TickResult> {
  let record;
  const spent = options.day === undefined
    ? null
    : await spentWorldBudget(deps, await getWorld(deps, worldId), { day: options.day });
  if (spent) {
    record = {
      ...await runTick(deps, worldId, coastTickSystem(deps, spent), options),
      budgetExhausted: true,
    };
  } else record = await runTick(deps, worldId, agentTickSystem(deps), options);
  // Worlds stored before clock modes existed read as cron worlds.
  return { ...record, clock: { ...record.clock, mode: record.clock.mode ?? "cron" } };
}
