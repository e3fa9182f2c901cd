/** @module What a prompt module builds: the messages, the model tier and the answer's schema. */
import { z } from "zod";
import { DATA_RULE, dataBlock, promptTag } from "./data_block.ts";

/** Cheap calls (importance, emoji, yes/no) go to the fast tier; plans, insights, dialogue to main. */
export type ModelTier = "main" | "fast";

/** One chat message. User, card and memory text only ever appears inside delimited data blocks. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** A prompt ready to send, as built by a module in `src/prompts/`. */
export interface Prompt<T> {
  /** The prompt's name, e.g. "importance"; fakes and the offline model dispatch on it. */
  kind: string;
  tier: ModelTier;
  messages: ChatMessage[];
  /** The shape the answer must have; the client validates it. */
  schema: z.ZodType<T>;
  /** The prompt's structured inputs, for the offline model to derive its answer from. */
  input: unknown;
  /** Upper bound on completion tokens. */
  maxTokens?: number;
}

/** What a prompt module writes; {@linkcode chatPrompt} turns it into the messages every prompt shares. */
export interface PromptSpec<T> extends Omit<Prompt<T>, "messages"> {
  /** The system message's lines between the prompt's tag and {@linkcode DATA_RULE}. */
  rules: readonly string[];
  /** The user message's sections, joined by a blank line. */
  user: readonly string[];
}

/**
 * A prompt as every module sends it: one system message (the tag naming the prompt, the rules,
 * then the data rule) and one user message holding the data blocks.
 */
export function chatPrompt<T>(spec: PromptSpec<T>): Prompt<T> {
  const { rules, user, ...prompt } = spec;
  return {
    ...prompt,
    messages: [
      { role: "system", content: [promptTag(spec.kind), ...rules, DATA_RULE].join("\n") },
      { role: "user", content: user.join("\n\n") },
    ],
  };
}

/** A heading and the data block under it, e.g. "Profile:\n<<<PROFILE_DATA…". */
export function dataSection(heading: string, label: string, value: unknown): string {
  return `${heading}:\n${dataBlock(label, value)}`;
}

/** The answer of a list prompt: one key holding items of one shape, e.g. `{"scores": [7, 2]}`. */
export interface ListAnswer<K extends string, T extends z.ZodType> {
  key: K;
  item: T;
}

/** The schema of a list prompt's answer: exactly `count` items under the answer's key. */
export function listSchema<K extends string, T extends z.ZodType>(
  answer: ListAnswer<K, T>,
  count: number,
) {
  return z.object({ [answer.key]: z.array(answer.item).length(count) } as Record<K, z.ZodArray<T>>);
}

/** What a list prompt's module writes; {@linkcode listPrompt} adds the schema and the answer rule. */
export interface ListPromptSpec<K extends string, T extends z.ZodType>
  extends Omit<PromptSpec<unknown>, "schema" | "maxTokens"> {
  answer: ListAnswer<K, T>;
  /** How many items the answer holds: one per input item, or as many as asked for. */
  count: number;
  /** The answer rule's words after the count, e.g. "numbers, one per event, in the order given". */
  items: string;
  /** Completion tokens: `base`, and `each` more per item. */
  tokens: { base: number; each: number };
}

/**
 * A prompt whose answer is one list of exactly `count` items (a batch rated or described in one
 * call, or so many questions): its rules end with the answer's JSON shape and count, and its
 * token bound grows with the count.
 */
export function listPrompt<K extends string, T extends z.ZodType>(
  spec: ListPromptSpec<K, T>,
): Prompt<z.infer<ReturnType<typeof listSchema<K, T>>>> {
  const { answer, count, items, tokens, rules, ...prompt } = spec;
  return chatPrompt({
    ...prompt,
    schema: listSchema(answer, count),
    maxTokens: tokens.base + tokens.each * count,
    rules: [
      ...rules,
      `Answer with JSON {"${answer.key}": [...]} holding exactly ${count} ${items}.`,
    ],
  });
}
