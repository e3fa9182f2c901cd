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
 * Given `earlier` memories (those nearest the texts), the same call also names the one each text
 * updates (`supersedes`), so supersession costs no call of its own.
 */
export async function scoreImportance(
  deps: Pick<Deps, "model">,
  attribution: { worldId: string; agentId: string; agentName: string },
  request: { texts: readonly string[]; earlier?: readonly string[] },
): Promise<ImportanceScores> {
  const { texts, earlier = [] } = request;
  const scores: (number | null)[] = texts.map((t) => (isIdle(t) ? 1 : null));
  const todo = texts.map((t, i) => [t, i] as const).filter(([, i]) => scores[i] === null);
  if (todo.length === 0) return { scores, usage: emptyUsage() };
  try {
    const { value, usage } = await completeIn(deps, attribution, {
      prompt: buildImportancePrompt({
        agentName: attribution.agentName,
        observations: todo.map(([t]) => t),
        ...earlier.length > 0 ? { earlier: [...earlier] } : {},
      }),
      operation: "importance",
    });
    const supersedes = texts.map(() => 0);
    const valence: (number | null)[] = texts.map(() => null);
    todo.forEach(([, i], j) => {
      scores[i] = value.scores[j];
      supersedes[i] = value.supersedes?.[j] ?? 0;
      const felt = value.valence?.[j];
      valence[i] = typeof felt === "number" ? felt / 5 : null;
    });
    return earlier.length > 0 ? { scores, supersedes, valence, usage } : { scores, valence, usage };
  } catch (err) {
    if (err instanceof ModelUnavailableError) return { scores, usage: emptyUsage(), failure: err };
    throw err;
  }
}
