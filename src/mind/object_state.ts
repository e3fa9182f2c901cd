/** @module Objects change state: what each object becomes under its user's action, in one call (Generative Agents §4.3, §5). */
import type { Deps } from "../ports/mod.ts";
import { buildObjectStatePrompt, type ObjectStateItem, type Usage } from "../domain/mod.ts";
import { completeAs } from "./_complete.ts";

/**
 * One fast-model call for the new state of every object in `items`, in order.
 * @throws `model_*` (the caller leaves the objects as they are).
 */
export async function objectStates(
  deps: Pick<Deps, "model">,
  items: readonly ObjectStateItem[],
  worldId: string,
): Promise<{ states: string[]; usage: Usage }> {
  const { value, usage } = await completeAs(deps, buildObjectStatePrompt({ items: [...items] }), {
    worldId,
    operation: "object_state",
  });
  return { states: value.states, usage };
}
