/**
 * @module The planning routes' operations (Generative Agents §4.3): make or re-plan on request
 * and the action at a time, each one transaction over the agent; read a plan.
 */
import type { Deps } from "../ports/mod.ts";
import {
  type AgentScope,
  checkCalendar,
  type DayPlan,
  type GameTime,
  type PlannedAction,
  SimulacraError,
  type Usage,
} from "../domain/mod.ts";
import { currentAction, makeDayPlan, replanFrom } from "./cognition/mod.ts";
import { withAgent } from "./transaction.ts";

export { readPlan } from "./cognition/mod.ts";

/** What {@linkcode requestPlan} is asked for. */
export interface PlanRequest {
  /** The day to plan; default: the date of `from`, else of the world clock. */
  date?: string;
  /** Keep the day up to this time and plan the rest again. */
  from?: GameTime;
  /** With `from`: what came up. */
  reason?: string;
}

/**
 * `POST …/plan`: makes the day plan of `date` (default: the date of `from`, else of the world
 * clock), or with `from` re-plans the rest of that day.
 * @throws `world_not_found`, `agent_not_found`, `unprocessable` (date outside the calendar, or
 * `from` not on `date`), `model_*`, `store_unavailable`, `conflict`.
 */
export async function requestPlan(
  deps: Pick<Deps, "storage" | "sleep" | "model" | "embedder" | "ids">,
  scope: AgentScope,
  input: PlanRequest,
): Promise<{ plan: DayPlan; usage: Usage }> {
  return await withAgent(deps, { scope }, async ({ storage, world, agent, lease }) => {
    const d = { ...deps, storage };
    const date = input.date ?? input.from?.slice(0, 10) ?? world.clock.now.slice(0, 10);
    if (input.from !== undefined && input.from.slice(0, 10) !== date) {
      throw new SimulacraError(
        "unprocessable",
        `Cannot re-plan from "${input.from}" on "${date}": the time is on another day: send a "from" on "${date}" or leave out "date"`,
      );
    }
    checkCalendar(world, agent, date);
    const made = input.from === undefined
      ? await makeDayPlan(d, { world, agent }, { date, fence: lease })
      : await replanFrom(d, { world, agent }, {
        from: input.from,
        reason: input.reason ?? "something came up that changes the rest of the day",
        fence: lease,
      });
    return { plan: made.plan, usage: made.usage };
  });
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
): Promise<{ action: PlannedAction; usage: Usage }> {
  return await withAgent(deps, { scope }, async (tx) => {
    const time = at ?? tx.world.clock.now;
    checkCalendar(tx.world, tx.agent, time.slice(0, 10));
    const { action, usage } = await currentAction(deps, tx, { at: time });
    return { action: action!, usage };
  });
}
