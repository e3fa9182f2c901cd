/** @module Speak: the next line one agent says to another, from what it recalled (Generative Agents §4.3). */
import type { Deps } from "../ports/mod.ts";
import { buildDialogueLinePrompt, type DialogueLineInput, type Usage } from "../domain/mod.ts";
import { completeIn } from "./_complete.ts";

/** A line said, whether the speaker ends the talk with it, and the call's usage. */
export interface SpokenLine {
  /** The words, trimmed. */
  text: string;
  end: boolean;
  usage: Usage;
}

/**
 * One main-model call for the speaker's next line, given its summary, recalled memories, news
 * and the talk so far (all loaded by the caller).
 * @throws `model_*`.
 */
export async function speakLine(
  deps: Pick<Deps, "model">,
  input: DialogueLineInput,
  speaker: { worldId: string; agentId: string },
): Promise<SpokenLine> {
  const { value, usage } = await completeIn(deps, speaker, {
    prompt: buildDialogueLinePrompt(input),
    operation: "dialogue_line",
  });
  return { text: value.line.trim(), end: value.end, usage };
}
