/** @module Reading a stored day plan (the planning routes' read; `app/plan.ts` has the writes). */
import { loadAgent } from "../agents/mod.ts";
import { type Deps, requireDocument } from "../../ports/mod.ts";
import { type AgentScope, checkCalendar, DayPlan, NotFoundError } from "../../domain/mod.ts";
import { getWorld } from "../world/mod.ts";
import { planKey } from "./plan_store.ts";

/**
 * `GET …/plan`: the stored plan of `date` (default: the date of the world clock).
 * @throws `world_not_found`, `agent_not_found`, `unprocessable` (outside the calendar),
 * `not_found` when that day has no plan yet.
 */
export async function readPlan(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  date?: string,
): Promise<DayPlan> {
  const world = await getWorld(deps, scope.worldId);
  const agent = (await loadAgent(deps, scope)).value;
  const day = date ?? world.clock.now.slice(0, 10);
  checkCalendar(world, agent, day);
  const doc = await requireDocument<DayPlan>(
    deps.storage.documents,
    planKey(world.id, agent.id, day),
    () =>
      new NotFoundError(
        "not_found",
        `Cannot find a plan of agent "${agent.id}" for "${day}": make one with POST /v1/worlds/${world.id}/agents/${agent.id}/plan`,
      ),
  );
  return doc.value;
}
