/** @module Prompt: the next line one agent says to another in a conversation (Generative Agents §4.3). */
import { z } from "zod";
import { chatPrompt, dataSection, type Prompt } from "./prompt.ts";
import { clipLine, profileText } from "./data_block.ts";

/** Longest memory line the prompt shows, in characters; longer ones are cut with "…". */
export const DIALOGUE_MEMORY_CHARS = 160;

/** One line said so far. */
export interface DialogueTurn {
  /** The speaker's name. */
  speaker: string;
  text: string;
}

/** Inputs of {@linkcode buildDialogueLinePrompt}. */
export interface DialogueLineInput {
  speakerName: string;
  listenerName: string;
  /** The speaker's cached summary. */
  summary: string;
  /** Game time of the line. */
  now: string;
  /** The speaker's memories about the listener and about the last line, best first. */
  memories: string[];
  /**
   * News the speaker could pass on: its most important memories of plans, events and things it
   * was told, most important first, none of them from or about the listener. The paper's agents
   * spread information this way. @default none
   */
  news?: string[];
  /** What the speaker said to the listener in earlier conversations, newest first. @default none */
  toldBefore?: string[];
  /** Why the speaker starts the conversation; only the initiator has one, and may have none. */
  topic: string | null;
  /** The conversation so far, oldest first; empty for the opening line. */
  history: DialogueTurn[];
  /** This speaker's line number in the conversation, from 1. */
  turn: number;
  /** The most lines each speaker may say; the line at `turn === maxTurns` is the speaker's last. */
  maxTurns: number;
  /** World lore the talk calls up that the speaker knows (issue 22). @default none */
  lore?: string[];
}

/** The words spoken, and whether the speaker ends the conversation with them. */
export const DialogueLineOutput = z.object({
  line: z.string().min(1).max(600),
  end: z.boolean(),
});
export type DialogueLineOutput = z.infer<typeof DialogueLineOutput>;

/**
 * Builds the dialogue-line prompt (main tier). The paper conditions each utterance on a
 * summarised memory about the other person; we pass the recalled memories themselves and let
 * this call do the summarising, which saves one call per line.
 * @see Generative Agents §4.3 "Dialogue"; Park et al. 2023 §4.3.2.
 */
export function buildDialogueLinePrompt(input: DialogueLineInput): Prompt<DialogueLineOutput> {
  const opening = input.history.length === 0;
  const last = input.turn >= input.maxTurns;
  return chatPrompt({
    kind: "dialogue_line",
    tier: "main",
    input,
    schema: DialogueLineOutput,
    maxTokens: 200,
    rules: [
      "Write the next thing one character of a life simulation says in a face-to-face conversation: one to three short, casual sentences, as they would speak in everyday life, true to their profile.",
      "Draw only on their profile, their memories, their news and what has been said; do not make up shared history or facts they could not know, and do not repeat earlier lines.",
      'Answer with JSON {"line": …, "end": …}. "line" holds only the spoken words, without the speaker\'s name or quotation marks.',
      // The rules that depend on the turn last: the rest is the same on every line.
      opening
        ? "Nobody has spoken yet: the character opens the conversation, guided by their reason for talking if one is given."
        : "Reply to the last line, keeping the conversation going naturally.",
      last
        ? 'This is the character\'s last line: wrap up politely and set "end" to true.'
        : 'Set "end" to true only when the character would naturally close the conversation now (a goodbye, nothing left to say).',
    ],
    // What stays the same through a conversation first (the speaker, the listener, the news, the
    // reason to talk), then the moment, what was just recalled and what was said.
    user: [
      dataSection("The speaking character", "speaker", {
        name: input.speakerName,
        profile: profileText(input.summary),
      }),
      dataSection("The person they are talking to", "listener", { name: input.listenerName }),
      ...((input.news ?? []).length === 0 ? [] : [
        dataSection(
          "News the speaker knows, most important first (pass one on if the listener has likely not heard it)",
          "news",
          input.news!.map((m) => clipLine(m, DIALOGUE_MEMORY_CHARS)),
        ),
      ]),
      ...((input.toldBefore ?? []).length === 0 ? [] : [
        dataSection(
          "What the speaker told them in earlier conversations (do not repeat it)",
          "told_before",
          input.toldBefore!.map((m) => clipLine(m, DIALOGUE_MEMORY_CHARS)),
        ),
      ]),
      ...(input.topic === null
        ? []
        : [dataSection("Why the speaker wants to talk", "intent", input.topic)]),
      ...((input.lore ?? []).length === 0
        ? []
        : [dataSection("World lore the speaker knows", "lore", input.lore)]),
      `Game time: ${input.now}. This is the character's line ${input.turn} of at most ${input.maxTurns}.`,
      dataSection(
        "What the speaker remembers about them and about what was just said",
        "memories",
        input.memories.map((m) => clipLine(m, DIALOGUE_MEMORY_CHARS)),
      ),
      dataSection(
        "The conversation so far, oldest first",
        "history",
        input.history.map((t) => `${t.speaker}: ${t.text}`),
      ),
    ],
  });
}
