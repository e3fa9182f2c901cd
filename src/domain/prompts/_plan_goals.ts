/**
 * @module The goals a day plan serves (PUT …/goals): how the day-plan prompt shows them, the
 * rule it adds, and the field each item answers with. With no goals, nothing changes: the
 * prompt and its schema stay as they were.
 */
import { z } from "zod";
import { dataSection } from "./prompt.ts";

/** A goal as the day-plan prompt shows it, by number (1-based, in list order). */
export interface PlanGoal {
  description: string;
  /** 1 (when there is time) to 5 (most pressing). */
  priority: number;
}

/** The answer's `goal`, typed as optional: a plan without goals has none. */
type GoalField = { goal: z.ZodOptional<z.ZodNullable<z.ZodNumber>> };

/**
 * The `goal` field of each item: the number of the goal it serves, or null (required, as strict
 * structured output wants). Without goals the field is left out of the schema.
 */
export function goalField(goals: readonly PlanGoal[]): GoalField {
  if (goals.length === 0) return {} as GoalField;
  return { goal: z.number().int().min(1).max(goals.length).nullable() } as unknown as GoalField;
}

/** The rule the prompt adds when the character has goals. */
export function goalRules(goals: readonly PlanGoal[]): string[] {
  if (goals.length === 0) return [];
  return [
    'The character has goals of its own, listed by number, most pressing first. Make room in the day for the active goals, the most pressing first, with items that work towards them, as the character would; give each item "goal": the number of the goal it serves, or null.',
  ];
}

/** The prompt's section listing the goals, when there are any. */
export function goalSection(goals: readonly PlanGoal[]): string[] {
  if (goals.length === 0) return [];
  return [
    dataSection(
      "The character's goals, by number, most pressing first",
      "goals",
      goals.map((g, i) => `${i + 1}. ${g.description} (priority ${g.priority} of 5)`),
    ),
  ];
}
