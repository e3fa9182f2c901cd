/**
 * @module Goals a game gives an agent ("find the missing cat", priority 4, until Friday noon):
 * day plans and re-plans serve the active ones by priority, and the plan items that do carry the
 * goal's id. A goal is done when the game says so and expired once game time passes `until`.
 */
import { z } from "zod";
import { SimulacraError } from "../errors.ts";
import { GameTime } from "../time/mod.ts";

/** Most goals one agent holds. */
export const MAX_GOALS = 20;
/** Longest goal description, in characters. */
export const MAX_GOAL_DESCRIPTION = 300;

/** A goal as the game sets it. */
export const GoalInput = z
  .strictObject({
    id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "Goal ids are 1-64 letters, digits, '_' or '-'")
      .meta({ example: "lantern-festival" }),
    description: z.string().trim().min(1).meta({
      description: `What the agent wants to get done, at most ${MAX_GOAL_DESCRIPTION} characters`,
      example: "get the shop ready for the lantern festival",
    }),
    priority: z.number().int().min(1).max(5).meta({
      description: "1 (when there is time) to 5 (most pressing); plans serve higher ones first",
      example: 4,
    }),
    until: GameTime.optional().meta({
      description: "Game time after which the goal expires; default: never",
    }),
  })
  .meta({ id: "GoalInput" });
export type GoalInput = z.infer<typeof GoalInput>;

/** The body of `PUT …/agents/{agent}/goals`: the agent's whole list of goals. */
export const GoalList = z.array(GoalInput).max(MAX_GOALS).meta({
  id: "GoalList",
  example: [{
    id: "lantern-festival",
    description: "get the shop ready for the lantern festival",
    priority: 4,
    until: "2023-02-14T18:00:00",
  }],
});

/** A goal as stored: what the game set, and whether the game marked it done. */
export interface StoredGoal extends GoalInput {
  done: boolean;
  /** Game time the goal was marked done. */
  doneAt?: GameTime;
}

/** A goal's status at a game time. */
export const GoalStatus = z.enum(["active", "done", "expired"]).meta({ id: "GoalStatus" });
export type GoalStatus = z.infer<typeof GoalStatus>;

/** A plan item that serves a goal. */
export const ServingItem = z.object({
  date: z.string(),
  start: GameTime,
  end: GameTime,
  description: z.string(),
  location: z.string(),
});

/** A goal as `GET …/goals` answers it. */
export const GoalView = GoalInput.extend({
  status: GoalStatus,
  doneAt: GameTime.optional(),
  servedBy: z.array(ServingItem).meta({
    description: "The items of the agent's plan for the world clock's day that serve the goal",
  }),
}).meta({ id: "GoalView" });
export type GoalView = z.infer<typeof GoalView>;

/** The body of `PATCH …/goals/{goalId}`. */
export const GoalPatch = z
  .strictObject({
    status: z.enum(["done", "active"]).meta({
      description: "done: the game saw it through; active: open it again",
    }),
  })
  .meta({ id: "GoalPatch", example: { status: "done" } });
export type GoalPatch = z.infer<typeof GoalPatch>;

/** A goal's status at `at`: done when marked so, expired past `until`, else active. */
export function goalStatus(goal: StoredGoal, at: GameTime): GoalStatus {
  if (goal.done) return "done";
  return goal.until !== undefined && goal.until < at ? "expired" : "active";
}

/** The goals active at `at`, most pressing first (ties: the order the game gave). */
export function activeGoals(goals: readonly StoredGoal[], at: GameTime): StoredGoal[] {
  return goals
    .map((goal, order) => ({ goal, order }))
    .filter(({ goal }) => goalStatus(goal, at) === "active")
    .sort((a, b) => b.goal.priority - a.goal.priority || a.order - b.order)
    .map(({ goal }) => goal);
}

/**
 * The goals of a PUT as stored: unique ids and descriptions within their size; a goal the agent
 * already had keeps being done when it was.
 * @throws `unprocessable` naming the first bad item (`details.index`).
 */
export function goalsToStore(
  goals: readonly GoalInput[],
  previous: readonly StoredGoal[],
): StoredGoal[] {
  const seen = new Map<string, number>();
  goals.forEach((goal, index) => {
    const first = seen.get(goal.id);
    const refuse = (why: string) =>
      new SimulacraError("unprocessable", `Cannot store goal ${index}: ${why}`, {
        details: { index },
      });
    if (first !== undefined) throw refuse(`its id "${goal.id}" is already used by goal ${first}`);
    seen.set(goal.id, index);
    if (goal.description.length > MAX_GOAL_DESCRIPTION) {
      throw refuse(`its description is over ${MAX_GOAL_DESCRIPTION} characters`);
    }
  });
  const before = new Map(previous.map((g) => [g.id, g]));
  return goals.map((goal) => {
    const old = before.get(goal.id);
    return old?.done
      ? { ...goal, done: true, ...(old.doneAt ? { doneAt: old.doneAt } : {}) }
      : { ...goal, done: false };
  });
}
