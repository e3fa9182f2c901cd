/**
 * @module Information diffusion: who knows a seeded fact, checked against memory streams so a
 * claim to know it must rest on a memory that mentions it.
 * @see Generative Agents §6–7 "information diffusion"; Park et al. 2023 §7.1
 */

/** Memory texts (descriptions) of each agent, by agent id. */
export type MemoryTexts = ReadonlyMap<string, readonly string[]>;

/** A fact as text patterns: mentioned when every `allOf` and at least one `anyOf` matches. */
export interface FactPattern {
  allOf: readonly RegExp[];
  anyOf: readonly RegExp[];
}

/** A fact seeded in one agent, its originator. */
export interface SeededFact extends FactPattern {
  originator: string;
}

/** Who knows a fact. */
export interface Diffusion {
  /** Agent ids that know it, the originator included, in the order of `memories`. */
  knows: string[];
  /** `knows.length`. */
  count: number;
  /** `count` over all agents, in [0, 1]. */
  share: number;
}

/** Whether a text mentions the fact. */
export function mentionsFact(text: string, fact: FactPattern): boolean {
  return fact.allOf.every((p) => test(p, text)) &&
    (fact.anyOf.length === 0 || fact.anyOf.some((p) => test(p, text)));
}

/**
 * Who knows the fact: its originator, and every other agent with a memory of its own that
 * mentions it. An agent that never heard of it has no such memory, so an agent that would only
 * claim to know it (a hallucination) is not counted.
 * @see Park et al. 2023 §7.1.1: knowledge verified against the memory stream
 */
export function diffusion(fact: SeededFact, memories: MemoryTexts): Diffusion {
  const knows = [...memories.entries()]
    .filter(([id, texts]) => id === fact.originator || texts.some((t) => mentionsFact(t, fact)))
    .map(([id]) => id);
  return {
    knows,
    count: knows.length,
    share: memories.size === 0 ? 0 : knows.length / memories.size,
  };
}

function test(pattern: RegExp, text: string): boolean {
  // Not `pattern.test`: a global or sticky pattern keeps state between its calls, and `search`
  // always starts at the beginning and leaves the pattern as it was.
  return text.search(pattern) !== -1;
}
