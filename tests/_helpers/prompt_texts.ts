/**
 * @module The texts of a built prompt, for the prompt tests: each checks the prompt's kind, tier
 * and system marker the same way, and that character text stays inside data blocks.
 */
import assert from "node:assert/strict";
import type { ModelTier, Prompt } from "../../src/domain/prompts/prompt.ts";

/** The system and user texts of `prompt`, once its kind, tier and `[prompt:kind]` marker match. */
export function promptTexts<T>(
  prompt: Prompt<T>,
  kind: string,
  tier: ModelTier,
): { system: string; user: string } {
  assert.equal(prompt.kind, kind);
  assert.equal(prompt.tier, tier);
  const [system, user] = prompt.messages.map((m) => m.content);
  assert.match(system, new RegExp(`^\\[prompt:${kind}\\]\\n`));
  return { system, user };
}

/** What a user message says outside its data blocks: where no character text may stand. */
export function outsideDataBlocks(user: string): string {
  return user.replace(/<<<(\w+)_DATA[\s\S]*?\1_DATA>>>/g, "");
}

/** The text inside the `name` data block of `user`; fails the test where there is none. */
export function dataBlockText(user: string, name: string): string {
  const block = new RegExp(`<<<${name}_DATA\\n([\\s\\S]*?)\\n${name}_DATA>>>`).exec(user);
  assert.ok(block, `no ${name}_DATA block`);
  return block[1];
}

/** The value the `name` data block of `user` holds, parsed from its JSON. */
export function dataBlockValue(user: string, name: string): unknown {
  return JSON.parse(dataBlockText(user, name));
}

/** The list of strings the `name` data block of `user` holds; fails the test where it is not one. */
export function dataBlockList(user: string, name: string): string[] {
  const value = dataBlockValue(user, name);
  assert.ok(Array.isArray(value) && value.every((v) => typeof v === "string"), `${name}_DATA`);
  return value;
}

/** Asserts that the `name` data block of `user` holds text matching `inside`. */
export function assertInDataBlock(user: string, name: string, inside: RegExp): void {
  assert.match(dataBlockText(user, name), inside);
}

/** A remembered quote far longer than one prompt line: `said` then `sentence` `times` over, quoted. */
export function longQuote(said: string, sentence: string, times: number): string {
  return `${said}: "${sentence.repeat(times)}"`;
}
