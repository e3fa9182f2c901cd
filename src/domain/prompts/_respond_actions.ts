/**
 * @module The game's actions in the reply, plan-actions and item-plan prompts (PUT …/actions): how
 * they are shown, the rules that ask for them, and the answer's fields (`game_actions` of a reply,
 * `game_action` of a planned step). With no action registered both prompts and their schemas
 * are exactly as before: no extra tokens.
 */
import { z } from "zod";
import { dataSection } from "./prompt.ts";

/** An action as the reply prompt shows it. */
export interface PromptGameAction {
  name: string;
  description: string;
  /** Its JSON Schema, shown as the game wrote it. */
  parameters: Record<string, unknown>;
}

/**
 * The answer's `game_actions`: each a name and its arguments as JSON text (as tool calls carry
 * them), so any parameter schema fits a strict structured-output schema; the arguments are
 * checked against the action's own schema afterwards, and a bad one is dropped, not retried:
 * nothing here is bounded, so a bad action never fails the whole reply.
 */
export const GameActionsField = z.array(z.object({
  name: z.string(),
  arguments: z.string().meta({
    description:
      'The arguments as a JSON object written as a string, e.g. "{\\"item\\": \\"lantern\\"}"',
  }),
}));
export type ProposedGameActions = z.infer<typeof GameActionsField>;

/** The rules the reply prompt adds when the game registered actions. */
export function gameActionRules(actions: readonly PromptGameAction[]): string[] {
  if (actions.length === 0) return [];
  return [
    'The game lets the character act in the world through the actions listed under the actions heading (name, what it does, its parameters as a JSON Schema). When, in this turn, the character does one of them (it agrees to what it is asked, or decides to on its own), add it to "game_actions" as {"name": …, "arguments": "<the arguments as a JSON object in a string>"}, and let "reply" fit what it does. Use only listed names and arguments the parameters allow. Most turns do none: then "game_actions" is []. A question about something, or a request the character refuses, is not an action.',
  ];
}

/** The prompt's section listing the actions, when there are any. */
export function gameActionSection(actions: readonly PromptGameAction[]): string[] {
  if (actions.length === 0) return [];
  return [dataSection("Actions the character can take in the game", "actions", actions)];
}

/** A planned step's `game_action`: the game's action the step is, or null. */
export const StepGameActionField = z.object({ name: z.string(), arguments: z.string() })
  .nullable();

/** A step's `game_action`, typed as optional: without registered actions the field is absent. */
type StepGameAction = { game_action: z.ZodOptional<typeof StepGameActionField> };

/**
 * The `game_action` field of a planned step when the game registered actions, else none: the
 * schema is then exactly as without game hooks. Required when present, as strict structured
 * output wants.
 */
export function stepGameActionField(
  gameActions: readonly PromptGameAction[] | undefined,
): StepGameAction {
  return (gameActions?.length
    ? { game_action: StepGameActionField }
    : {}) as unknown as StepGameAction;
}

/**
 * The rule a planning prompt adds when the game registered actions: the plan-actions prompt
 * asks it of its steps, the item-plan prompt of the actions inside its steps (`unit`).
 */
export function stepGameActionRules(
  actions: readonly PromptGameAction[],
  { unit = "step" }: { unit?: "step" | "action" } = {},
): string[] {
  if (actions.length === 0) return [];
  const one = unit === "step" ? "a step" : "an action of a step";
  return [
    `The game lets the character act through the actions listed under the actions heading. When ${one} is one of them, give it "game_action": {"name": …, "arguments": "<the arguments as a JSON object in a string>"}, with only listed names and arguments the parameters allow; otherwise "game_action" is null, as it is for most ${unit}s.`,
  ];
}
