/** @module React: whether an agent carries on, reacts or talks after an observation (Generative Agents §4.3). */
import type { Deps } from "../ports/mod.ts";
import {
  buildReactionPrompt,
  type ReactionDecision,
  type ReactionInput,
  type Usage,
} from "../domain/mod.ts";
import { completeIn } from "./_complete.ts";

/** The model's decision, its reason, what to do or talk about, and the call's usage. */
export interface ReactionAnswer {
  decision: ReactionDecision;
  reason: string;
  /** For react, the new activity; for talk, what to talk about; else null. */
  reaction: string | null;
  usage: Usage;
}

/**
 * One fast-model call deciding the observer's answer, given its summary, current action, the
 * observations and its recalled memories (all loaded by the caller).
 * @throws `model_*`.
 */
export async function decideToReact(
  deps: Pick<Deps, "model">,
  input: ReactionInput,
  observer: { worldId: string; agentId: string },
): Promise<ReactionAnswer> {
  const { value, usage } = await completeIn(deps, observer, {
    prompt: buildReactionPrompt(input),
    operation: "reaction",
  });
  return {
    decision: value.decision,
    reason: value.reason,
    reaction: value.reaction ?? null,
    usage,
  };
}
