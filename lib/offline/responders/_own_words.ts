/**
 * @module What the offline planners write for what came up: a directive of the inner voice in the
 * agent's own words ("I should close the cafe early" → "close the cafe early"), and the first
 * thing to do after a talk or an event.
 */

// "I should", "I'll", "You need to", "Let me", "Maybe I ought to": what comes after is the step.
const INTENT =
  /^(?:(?:ok(?:ay)?|right|so|well|maybe|perhaps|today|tonight|now),?\s+)*(?:(?:i|you)\s+(?:really\s+|definitely\s+)?(?:should|must|need\s+to|have\s+to|ought\s+to|want\s+to|will|shall|am\s+going\s+to|are\s+going\s+to|could)|i['’]ll|you['’]ll|i['’]m\s+going\s+to|you['’]re\s+going\s+to|let\s+me|let['’]s)\s+/i;

// The inner voice speaking to the agent as "you": in a plan of its own, "my" and "me".
const SECOND_PERSON: ReadonlyArray<readonly [RegExp, string]> = [
  [/\byourself\b/gi, "myself"],
  [/\byour\b/gi, "my"],
  [/\byou\b/gi, "me"],
];

/** Words a statement (not a step) starts with. */
const STATEMENT_START =
  /^(?:the|a|an|my|our|his|her|their|its|it|this|that|these|those|there|he|she|they|we|i|i'm|i’m|you|nobody|everyone|someone|something)\b/i;

/** A name followed by its verb ("Marigold Cafe needs new chairs"): a statement too. */
const NAMED_SUBJECT =
  /^(?:\p{Lu}[\p{L}'’]*\s+){1,3}(?:is|are|was|were|has|have|needs|seems|looks|feels)\b/u;

/**
 * A directive of the inner voice as a plan step in the agent's own words: an intention ("I should
 * close the cafe early", "You need to call your sister") becomes the step ("close the cafe
 * early", "call my sister"); an imperative is kept ("Close the cafe early" → "close the cafe
 * early"); a statement becomes a thought to act on ("The roof leaks" → "think about what to do:
 * the roof leaks"). Never the directive quoted with its "inner voice:" label.
 */
export function ownWords(directive: string): string {
  let text = directive.trim().replace(/^["“'‘]+|["”'’]+$/g, "").trim();
  text = text.split(/(?<=[.!?…])\s+/)[0].replace(/[.!?…]+$/, "").trim();
  const intent = INTENT.exec(text);
  if (intent) text = text.slice(intent[0].length);
  else if (STATEMENT_START.test(text) || NAMED_SUBJECT.test(text)) {
    return clip(`think about what to do: ${lowerFirst(text)}`);
  }
  for (const [pattern, mine] of SECOND_PERSON) text = text.replace(pattern, mine);
  return clip(lowerFirst(text.trim()) || "think things over");
}

/** What to do first after something came up: think a talk over, or see to what happened. */
export function afterwards(reason: string): string {
  // "talked with Maria about the party; Maria said: “…”": what she said is for the plan, not this step.
  const talk = /^talked with (.+?) about (.+?)(?:; .+? said: “[^]*”)?$/.exec(reason);
  if (talk) {
    const topic = talk[2].trim();
    return /^(?:how things are going|["“])/.test(topic) || topic.length > 80
      ? `think over the chat with ${talk[1]}`
      : `think over the chat with ${talk[1]} about ${topic}`;
  }
  const seen = reason.replace(/^(?:see to it|deal with this|react to):\s*/i, "").trim();
  const short = clip(seen);
  return /^(?:see|deal|turn|fix|help|clean|go|call|check|get|put)\b/i.test(short)
    ? lowerFirst(short)
    : `see to what came up: ${short}`;
}

function lowerFirst(text: string): string {
  // "I" and names stay capitalised; only a sentence's first common word is lowered.
  return /^(?:I\b|[A-Z][a-z]+\s+[A-Z])/.test(text)
    ? text
    : text.charAt(0).toLowerCase() + text.slice(1);
}

function clip(text: string): string {
  return text.length <= 120 ? text : `${text.slice(0, 119)}…`;
}
