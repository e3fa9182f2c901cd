/**
 * @module Prompt: one in-character turn without the Magic-If protocol, the baseline MRBench
 * compares against (Memory-Driven Role-Playing §4: Base and Card; the "+Schema" ablation).
 */
import { chatPrompt, dataSection, type Prompt } from "./prompt.ts";
import { dataBlock, inertJson } from "./data_block.ts";
import { type RespondPromptInput, RespondPromptOutput } from "./respond.ts";

/**
 * Builds a plain role-play prompt from the same input as the respond prompt: the character's
 * profile (and the schema's traits, facets and relationships when the input carries them), its
 * memories and the conversation, but no anchor–select–bound–enact steps and no boundary check.
 */
export function buildRespondPlainPrompt(input: RespondPromptInput): Prompt<RespondPromptOutput> {
  const name = inertJson(input.agentName);
  const schema = input.anchor.coreTraits.length > 0 || input.facets.length > 0;
  return chatPrompt({
    kind: "respond_plain",
    tier: "main",
    input,
    schema: RespondPromptOutput,
    maxTokens: 500,
    rules: [
      `You are role-playing ${name}. Reply to the message as this character would.`,
      'Put only the spoken words in "reply"; "thoughts" and "actions" may be null. Set "bounded" to true if the character says it cannot know the answer, else false; rate in "importance" how much the moment matters, 1 to 10.',
      'Answer with JSON {"reply": …, "thoughts": …, "actions": …, "bounded": …, "importance": …}.',
    ],
    user: [
      `Present game time: ${input.now}. The character: ${name}.`,
      dataSection("The character", "character", {
        profile: input.anchor.summary,
        ...(input.anchor.globalSummary ? { background: input.anchor.globalSummary } : {}),
        ...(schema
          ? {
            core_traits: input.anchor.coreTraits,
            relationships: input.anchor.relationships,
            scene_facets: input.facets,
          }
          : {}),
      }),
      dataSection("The character's memories", "memories", input.memories),
      dataSection("The conversation so far, oldest first", "history", input.history),
      `The new message:\n${dataBlock("message", input.message)}`,
    ],
  });
}
