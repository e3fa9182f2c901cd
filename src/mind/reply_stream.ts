/**
 * @module Streaming a reply as the model writes it: the spoken words are read out of the
 * answer's JSON while it is still incomplete, so a game can show them word by word.
 */
import type { Completion, Deps, Prompt } from "../ports/mod.ts";
import type { Attribution, RespondPromptOutput } from "../domain/mod.ts";

/** A string field read from incomplete JSON: what has arrived of it, and whether it ended. */
export interface PartialString {
  value: string;
  complete: boolean;
}

/**
 * The value of the top-level string field `field` in `json`, which may stop anywhere: the
 * decoded characters that have arrived (an escape cut in half is left for later), or null
 * while the field has not started. Nested objects and string contents never match.
 */
export function partialStringField(json: string, field: string): PartialString | null {
  let depth = 0;
  let keyNext = false;
  for (let i = 0; i < json.length;) {
    const ch = json[i];
    if (ch === '"') {
      const str = readString(json, i);
      if (!str.complete) return null;
      i = str.end;
      if (depth === 1 && keyNext) {
        keyNext = false;
        while (i < json.length && /\s|:/.test(json[i])) i++;
        if (str.value === field && json[i] === '"') {
          const value = readString(json, i);
          return { value: value.value, complete: value.complete };
        }
      }
      continue;
    }
    if (ch === "{" || ch === "[") {
      depth++;
      keyNext = ch === "{" && depth === 1;
    } else if (ch === "}" || ch === "]") depth--;
    else if (ch === "," && depth === 1) keyNext = true;
    i++;
  }
  return null;
}

const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/** Decodes the JSON string starting at the quote at `start`, as far as it has arrived. */
function readString(json: string, start: number): PartialString & { end: number } {
  let value = "";
  let i = start + 1;
  while (i < json.length) {
    const ch = json[i];
    if (ch === '"') return { value, complete: true, end: i + 1 };
    if (ch !== "\\") {
      value += ch;
      i++;
      continue;
    }
    const kind = json[i + 1];
    if (kind === undefined) break;
    if (kind === "u") {
      const hex = json.slice(i + 2, i + 6);
      if (hex.length < 4) break;
      value += String.fromCharCode(parseInt(hex, 16));
      i += 6;
    } else {
      value += ESCAPES[kind] ?? kind;
      i += 2;
    }
  }
  return { value, complete: false, end: json.length };
}

/**
 * Turns pieces of a respond answer's JSON into deltas of the spoken words: the `reply` field
 * as it grows, without a leading `Name:` the model may write itself.
 */
export class SpokenWords {
  readonly #prefix: string;
  readonly #onDelta: (text: string) => void;
  #json = "";
  #sent = 0;

  constructor(agentName: string, onDelta: (text: string) => void) {
    this.#prefix = `${agentName}:`.toLowerCase();
    this.#onDelta = onDelta;
  }

  /** Takes the next piece of the answer's JSON. */
  push(text: string): void {
    this.#json += text;
    const reply = partialStringField(this.#json, "reply");
    if (reply === null) return;
    const start = reply.value.trimStart();
    const head = start.slice(0, this.#prefix.length).toLowerCase();
    // Wait while the words could still turn out to be the name prefix.
    const undecided = head.length < this.#prefix.length && this.#prefix.startsWith(head);
    if (!reply.complete && this.#sent === 0 && undecided) return;
    const words = head === this.#prefix ? start.slice(this.#prefix.length).trimStart() : start;
    if (words.length > this.#sent) {
      this.#onDelta(words.slice(this.#sent));
      this.#sent = words.length;
    }
  }
}

/**
 * Completes the respond prompt; with `onWords`, streamed through the model's `stream` when it
 * has one (else the words arrive at once when the answer is complete).
 */
export async function completeReply(
  deps: Pick<Deps, "model">,
  prompt: Prompt<RespondPromptOutput>,
  call: { attribution: Attribution; agentName: string; onWords?: (text: string) => void },
): Promise<Completion<RespondPromptOutput>> {
  const { attribution, onWords } = call;
  if (onWords === undefined) return await deps.model.complete(prompt, attribution);
  const words = new SpokenWords(call.agentName, onWords);
  if (deps.model.stream) {
    // A repaired answer is not streamed: the final response body is the truth.
    return await deps.model.stream(prompt, attribution, { onText: (text) => words.push(text) });
  }
  const completion = await deps.model.complete(prompt, attribution);
  words.push(JSON.stringify({ reply: completion.value.reply }));
  return completion;
}
