/**
 * @module Scores the importance of new memories in one batched fast-model call (Generative Agents
 * §4.1).
 */
import type { Deps } from "../ports/mod.ts";
import {
  buildImportancePrompt,
  emptyUsage,
  ImportanceScores,
  isIdle,
  ModelUnavailableError,
} from "../domain/mod.ts";
import { completeIn } from "./_complete.ts";

/**
 * Scores texts 1-10: idle ones get 1, the rest go to the fast model in one call. When the model
 * is unavailable after retries, their scores are null so the caller stores them as pending.
 */
export async function scoreImportance(
  deps: Pick<Deps, "model">,
  attribution: { worldId: string; agentId: string; agentName: string },
  texts: readonly string[],
): Promise<ImportanceScores> {
  const scores: (number | null)[] = texts.map((t) => (isIdle(t) ? 1 : null));
  const todo = texts.map((t, i) => [t, i] as const).filter(([, i]) => scores[i] === null);
  if (todo.length === 0) return { scores, usage: emptyUsage() };
  try {
    const { value, usage } = await completeIn(deps, attribution, {
      prompt: buildImportancePrompt({
        agentName: attribution.agentName,
        observations: todo.map(([t]) => t),
      }),
      operation: "importance",
    });
    todo.forEach(([, i], j) => (scores[i] = value.scores[j]));
    return { scores, usage };
  } catch (err) {
    if (err instanceof ModelUnavailableError) return { scores, usage: emptyUsage(), failure: err };
    throw err;
  }
}
