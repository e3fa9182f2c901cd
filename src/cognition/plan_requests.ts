/** @module The planning routes' operations: make or re-plan on request, read a plan, the action at a time. */
import { loadAgent } from "../agents/agent.ts";
import type { Deps } from "../deps.ts";
import { NotFoundError, SimulacraError } from "../errors.ts";
import type { AgentScope } from "../ids.ts";
import { GameTime } from "../time/game_time.ts";
import { getWorld } from "../world/world.ts";
import { checkCalendar, DayPlan } from "./plan.ts";
import { planKey } from "./plan_store.ts";
import { ActionResult, PlanInput, PlanResult, PlanView, planView } from "./plan_api.ts";
import { currentAction, makeDayPlan, replanFrom } from "./planning.ts";

/**
 * `POST …/plan`: makes the day plan of `date` (default: the date of `from`, else of the world
 * clock), or with `from` re-plans the rest of that day.
 * @throws `world_not_found`, `agent_not_found`, `unprocessable` (date outside the calendar, or
 * `from` not on `date`), `model_*`, `store_unavailable`, `conflict`.
 */
export async function requestPlan(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
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
