/** @module Token counting with the o200k BPE tokenizer, for usage estimates when a provider reports none. */
import { countTokens as countBpeTokens } from "gpt-tokenizer";
import type { ChatMessage } from "../../src/ports/mod.ts";
import { rememberRecent } from "../../src/domain/mod.ts";

// Text from users and models may contain strings such as "<|endoftext|>"; count them as plain
// text instead of letting the tokenizer throw on a special token.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

// OpenAI's accounting for chat formats: each message costs a few framing tokens on top of its
// role and content, and every reply is primed with 3 more (openai-cookbook, "How to count tokens
// with tiktoken").
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;

/**
 * Counts the tokens of a text with the o200k tokenizer (GPT-4o and later).
 *
 * @example
 * ```ts
 * import { countTextTokens } from "./token_count.ts";
 * countTextTokens("Hello, world!"); // 4
 * ```
 */
export function countTextTokens(text: string): number {
  return text.length === 0 ? 0 : countBpeTokens(text, PLAIN_TEXT);
}

/**
 * Counts of message texts seen lately. A chat's stable part (instructions, an
 * agent's identity, the world) repeats from call to call, and its BPE count was ~8% of a
 * simulated town's busy time (BENCHMARKS.md, "Performance (issue 25)", CPU).
 */
const countRecent = rememberRecent(countTextTokens, 1_000);

/**
 * Counts the prompt tokens of a chat as OpenAI bills them: each message's role and content plus
 * the chat format's framing tokens.
 *
 * @example
 * ```ts
 * import { countChatTokens } from "./token_count.ts";
 * countChatTokens([{ role: "user", content: "Hi" }]); // 8
 * ```
 */
export function countChatTokens(messages: readonly ChatMessage[]): number {
  let total = TOKENS_PER_REPLY;
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + countRecent(message.role) + countRecent(message.content);
  }
  return total;
}
