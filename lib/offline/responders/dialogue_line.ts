/** @module Offline responder for the "dialogue_line" prompt: lines built from the topic and memories, closed by the replier. */
import type { DialogueLineInput, DialogueLineOutput } from "../../../src/prompts/dialogue_line.ts";

/** The replier says goodbye on this line unless the turn cap comes first. */
const NATURAL_TURNS = 3;

function clean(text: string): string {
  return text.trim().replace(/[.;!?]+$/, "");
}

/**
 * Answers from the input alone. The opening names the topic (or the first memory about the
 * listener); later lines bring up a memory not yet mentioned. The initiator never ends; the
 * replier ends on its third line or its last allowed one, whichever comes first, so offline
 * conversations always end by a speaker within the turn cap.
 */
export function answerDialogueLine(input: unknown): DialogueLineOutput {
  const i = input as DialogueLineInput;
  const first = i.listenerName.trim().split(/\s+/)[0] || i.listenerName;
  const said = i.history.map((h) => h.text).join("\n");
  const fresh = i.memories.map(clean).find((m) => m.length > 0 && !said.includes(m));
  const initiator = i.history.length === 0 || i.history[0].speaker === i.speakerName;
  const end = !initiator && i.turn >= Math.min(i.maxTurns, NATURAL_TURNS);
  let line: string;
  if (i.history.length === 0) {
    line = i.topic !== null
      ? `Hi ${first}! I wanted to talk to you: ${clean(i.topic)}.`
      : fresh !== undefined
      ? `Hi ${first}! I was just thinking: ${fresh}.`
      : `Hi ${first}, how are you doing?`;
  } else if (end) {
    line = `It was good to talk, ${first}. See you later!`;
  } else {
    line = fresh !== undefined ? `That reminds me: ${fresh}.` : `I see. Tell me more, ${first}.`;
  }
  return { line: line.length <= 600 ? line : `${line.slice(0, 599)}…`, end };
}
