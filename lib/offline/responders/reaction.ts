/** @module Offline responder for the "reaction" prompt: talk to a free agent who is named, react to emergencies, else carry on. */
import type { ReactionInput, ReactionOutput } from "../../../src/domain/mod.ts";
import { words } from "../text.ts";

const ASLEEP = /\b(?:sleep|sleeping|asleep|napping)\b/i;
const BUSY =
  /\b(?:sleep|sleeping|asleep|napping|busy|talking|chatting|conversation|meeting|on a call|exam)\b/i;
const URGENT =
  /\b(?:fire|burning|burnt|smoke|storm\w*|flood\w*|broken|leak\w*|emergency|injured|hurt|crying|help)\b/i;

function clip(text: string, max: number): string {
  const t = text.trim().replace(/[.;]+$/, "");
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

/** Whether the text names the person, by full name or first name. */
function names(text: string, name: string): boolean {
  const said = new Set(words(text));
  const parts = words(name);
  return parts.length > 0 && (parts.every((p) => said.has(p)) || said.has(parts[0]));
}

/**
 * Answers from the input alone: an asleep observer carries on; an observation that names the
 * observed agent, who is not busy, starts a talk to catch up (the dialogue brings the news);
 * an emergency word ("fire", "burning", "broken", …) makes the observer react; otherwise continue.
 */
export function answerReaction(input: unknown): ReactionOutput {
  const i = input as ReactionInput;
  const seen = i.observations.join(" ");
  if (ASLEEP.test(i.currentAction ?? "")) {
    return { decision: "continue", reason: `${i.agentName} is asleep.`, reaction: null };
  }
  if (i.observed !== null && names(seen, i.observed.name) && !BUSY.test(i.observed.status)) {
    return {
      decision: "talk",
      reason: clip(`${i.agentName} sees ${i.observed.name}, who has a moment to chat`, 400),
      reaction: "how things are going",
    };
  }
  const urgent = i.observations.find((o) => URGENT.test(o));
  if (urgent !== undefined) {
    return {
      decision: "react",
      reason: clip(`This needs attention now: ${urgent}`, 400),
      reaction: clip(`see to it: ${urgent}`, 300),
    };
  }
  return {
    decision: "continue",
    reason: clip(`Nothing here calls for a change from ${i.currentAction ?? "the plan"}`, 400),
    reaction: null,
  };
}
