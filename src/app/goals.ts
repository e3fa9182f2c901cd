/**
 * @module Goals as the API offers them: set an agent's list, read each goal with its status and
 * the plan items serving it, mark one done. Planning reads the active ones itself
 * (`dayPlanInputs`).
 */
import {
  type AgentScope,
  type DayPlan,
  type GameTime,
  type GoalInput,
  type GoalPatch,
  goalStatus,
  goalsToStore,
  type GoalView,
  NotFoundError,
  type StoredGoal,
} from "../domain/mod.ts";
import type { Deps } from "../ports/mod.ts";
import { loadAgent } from "./agents/mod.ts";
import { planKey } from "./cognition/mod.ts";
import { loadGoals, updateGoals } from "./game_hooks/mod.ts";
import { getWorld } from "./world/mod.ts";

/**
 * Replaces the agent's goals; a goal it already had keeps being done when it was.
 * @throws `world_not_found`, `agent_not_found`, `unprocessable` naming a bad item
 * (`details.index`): a duplicate id, an oversized description.
 */
export async function setGoals(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  goals: readonly GoalInput[],
): Promise<GoalView[]> {
  await getWorld(deps, scope.worldId);
  await loadAgent(deps, scope);
  goalsToStore(goals, []); // refuses a bad list before anything is written
  await updateGoals(deps, scope, (previous) => goalsToStore(goals, previous));
  return await listGoals(deps, scope);
}

/**
 * The agent's goals, each with its status at the world clock and the items of that day's plan
 * that serve it.
 * @throws `world_not_found`, `agent_not_found`
 */
export async function listGoals(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<GoalView[]> {
  const world = await getWorld(deps, scope.worldId);
  await loadAgent(deps, scope);
  const now = world.clock.now;
  const [goals, plan] = await Promise.all([
    loadGoals(deps, scope),
    deps.storage.documents.get<DayPlan>(planKey(world.id, scope.agentId, now.slice(0, 10))),
  ]);
  return goals.map((goal) => goalView(goal, { at: now, plan: plan?.value ?? null }));
}

/**
 * Marks a goal done (or active again), at the world clock.
 * @throws `world_not_found`, `agent_not_found`, `not_found` when the agent has no such goal.
 */
export async function patchGoal(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  change: { goalId: string; patch: GoalPatch },
): Promise<GoalView> {
  const world = await getWorld(deps, scope.worldId);
  await loadAgent(deps, scope);
  const { goalId, patch } = change;
  const missing = () =>
    new NotFoundError(
      "not_found",
      `Cannot find goal "${goalId}" of agent "${scope.agentId}": set it with PUT /v1/worlds/${scope.worldId}/agents/${scope.agentId}/goals`,
    );
  if (!(await loadGoals(deps, scope)).some((g) => g.id === goalId)) throw missing();
  await updateGoals(deps, scope, (goals) =>
    goals.map((g): StoredGoal => {
      if (g.id !== goalId) return g;
      const { doneAt: _, ...open } = g;
      return patch.status === "done"
        ? { ...g, done: true, doneAt: g.doneAt ?? world.clock.now }
        : { ...open, done: false };
    }));
  const view = (await listGoals(deps, scope)).find((g) => g.id === goalId);
  if (view === undefined) throw missing(); // removed by a PUT meanwhile
  return view;
}

function goalView(
  goal: StoredGoal,
  { at, plan }: { at: GameTime; plan: DayPlan | null },
): GoalView {
  const { done: _, doneAt, ...input } = goal;
  return {
    ...input,
    status: goalStatus(goal, at),
    ...(doneAt ? { doneAt } : {}),
    servedBy: (plan?.items ?? []).filter((i) => i.goalId === goal.id).map((i) => ({
      date: plan!.date,
      start: i.start,
      end: i.end,
      description: i.description,
      location: i.location,
    })),
  };
}
