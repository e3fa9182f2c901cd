/**
 * @module The fake OpenAI server's stand-in for a provider's prompt cache: how many of a prompt's
 * tokens repeat the prefix of an earlier prompt, counted the way providers count them.
 *
 * Providers cache prompt prefixes in fixed-size blocks: vLLM's automatic prefix caching hashes
 * blocks of 16 tokens, each hash chained to the ones before it, and reuses the longest run of
 * leading blocks it has seen; OpenAI caches prompts of 1,024 tokens or more and counts cached
 * tokens in 128-token steps after the first 1,024. This does the same over text, with the fake's
 * token estimate (4 characters a token): a prompt (its messages' roles and contents in order) is
 * cut into blocks of `blockTokens * 4` characters; the cached tokens are the leading blocks whose
 * chained hash an earlier prompt to the same model produced, times `blockTokens`, or 0 below
 * `minTokens`. Every block of every prompt is remembered (forgotten all at once past a million,
 * so a long-running dev server stays small). An approximation: real tokenizers cut text
 * elsewhere, and real caches evict.
 */
import type { ChatMessage } from "../src/ports/mod.ts";
import { fnv1a } from "../lib/offline/text.ts";

/** How the fake counts cached prompt tokens. */
export interface PromptCacheRule {
  /** Tokens per cached block. */
  blockTokens: number;
  /** A prompt shares fewer tokens than this with earlier ones: nothing is cached. */
  minTokens: number;
}

/** vLLM's automatic prefix caching: 16-token blocks, no minimum (the fake's default). */
export const VLLM_PREFIX_CACHE: PromptCacheRule = { blockTokens: 16, minTokens: 0 };

/** OpenAI's prompt caching: from 1,024 tokens, in steps of 128. */
export const OPENAI_PROMPT_CACHE: PromptCacheRule = { blockTokens: 128, minTokens: 1024 };

/** Characters per token in the fake's estimates. */
const CHARS_PER_TOKEN = 4;

/** Blocks remembered before the cache forgets everything. */
const MAX_BLOCKS = 1_000_000;

/** Remembers prompts and tells how many tokens of a new one an earlier one's prefix covers. */
export class PromptPrefixCache {
  readonly #rule: PromptCacheRule;
  readonly #seen = new Set<string>();

  constructor(rule: PromptCacheRule = VLLM_PREFIX_CACHE) {
    this.#rule = rule;
  }

  /** The cached tokens of `messages` sent to `model`, then remembers its blocks. */
  cachedTokens(model: string, messages: readonly ChatMessage[]): number {
    const text = messages.map((m) => `${m.role}\n${String(m.content)}\n`).join("");
    const size = this.#rule.blockTokens * CHARS_PER_TOKEN;
    let chain = `${model}:`;
    let hits = 0;
    let missed = false;
    if (this.#seen.size > MAX_BLOCKS) this.#seen.clear();
    for (let at = 0; at + size <= text.length; at += size) {
      const block = text.slice(at, at + size);
      chain = `${fnv1a(block, fnv1a(chain))}.${fnv1a(block, fnv1a(chain, 7))}`;
      if (!missed && this.#seen.has(chain)) hits++;
      else missed = true;
      this.#seen.add(chain);
    }
    const tokens = hits * this.#rule.blockTokens;
    return tokens < this.#rule.minTokens ? 0 : tokens;
  }
}
