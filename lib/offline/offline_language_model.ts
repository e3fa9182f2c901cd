/** @module LanguageModel used when no model is configured: schema-valid answers from a prompt's inputs, replayable with a seed. */
import { z } from "zod";
import {
  type Attribution,
  clipLine,
  ModelUnavailableError,
  type Usage,
  type UsageSink,
} from "../../src/domain/mod.ts";
import type {
  Completion,
  LanguageModel,
  ModelInfo,
  Prompt,
  StreamOptions,
} from "../../src/ports/mod.ts";
import { countChatTokens, countTextTokens } from "../openai/token_count.ts";
import { OFFLINE_RESPONDERS, type OfflineResponder } from "./offline_responders.ts";

export type { OfflineResponder };
import { type JsonSchema, sampleJsonSchema } from "./json_schema_sample.ts";

/** Options for {@linkcode OfflineLanguageModel}. */
export interface OfflineLanguageModelOptions {
  /**
   * Responders of this instance, by prompt kind; they take precedence over registered ones.
   * @default none
   */
  responders?: Record<string, OfflineResponder> | ReadonlyMap<string, OfflineResponder>;
  /**
   * Receives every call's (estimated) usage.
   * @default none
   */
  onUsage?: UsageSink;
}

const MODEL = "offline";
const REGISTRY = new Map<string, OfflineResponder>(OFFLINE_RESPONDERS);
const JSON_SCHEMAS = new WeakMap<z.ZodType, JsonSchema>();

/**
 * Registers a responder for a prompt kind in every {@linkcode OfflineLanguageModel}, replacing
 * any earlier one (the built-in "importance" responder included).
 *
 * @example
 * ```ts
 * import { registerOfflineResponder } from "./offline_language_model.ts";
 * registerOfflineResponder("emoji", () => ({ emoji: "☕" }));
 * ```
 */
export function registerOfflineResponder(kind: string, responder: OfflineResponder): void {
  REGISTRY.set(kind, responder);
}

/**
 * A rule-based stand-in for a language model, used when none is configured. Its answers depend
 * only on the prompt and on the call's seed (else world), agent and kind, never on timing: with
 * the world's `seed` setting a run replays exactly. A prompt kind
 * with a responder (given to the constructor, registered, or built in: "importance") is answered
 * from the prompt's `input`; any other kind gets a value synthesised from its zod schema, with
 * strings drawn from the input's text. Usage is estimated with the o200k tokenizer.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { OfflineLanguageModel } from "./offline_language_model.ts";
 * const model = new OfflineLanguageModel();
 * const { value } = await model.complete({
 *   kind: "importance",
 *   tier: "fast",
 *   messages: [{ role: "user", content: "Rate: Klaus is brushing his teeth" }],
 *   schema: z.object({ scores: z.array(z.number().int().min(1).max(10)) }),
 *   input: { observations: ["Klaus is brushing his teeth"] },
 * }, { operation: "importance" });
 * value.scores; // [1]
 * ```
 */
export class OfflineLanguageModel implements LanguageModel {
  /** Always `{ mode: "offline", main: "offline", fast: "offline" }`. */
  readonly info: ModelInfo = { mode: "offline", main: MODEL, fast: MODEL };
  readonly #responders: ReadonlyMap<string, OfflineResponder>;
  readonly #onUsage?: UsageSink;

  constructor(options: OfflineLanguageModelOptions = {}) {
    const responders = options.responders ?? {};
    this.#responders = responders instanceof Map
      ? new Map(responders)
      : new Map(Object.entries(responders));
    this.#onUsage = options.onUsage;
  }

  /**
   * Answers a prompt offline.
   *
   * @throws {ModelUnavailableError} `model_invalid_output` naming the kind when the responder
   * fails or its (or the synthesised) answer does not match the schema: register a responder.
   */
  async complete<T>(prompt: Prompt<T>, attribution: Attribution): Promise<Completion<T>> {
    const responder = this.#responders.get(prompt.kind) ?? REGISTRY.get(prompt.kind);
    const source = responder === undefined ? "synthesised answer" : "offline responder's answer";
    let answer: unknown;
    try {
      answer = responder === undefined
        ? synthesise(prompt as Prompt<unknown>)
        : responder(prompt.input, prompt as Prompt<unknown>, choiceKey(prompt.kind, attribution));
    } catch (cause) {
      throw invalid(prompt.kind, `the ${source} failed`, { cause });
    }
    let result = prompt.schema.safeParse(answer);
    if (!result.success) {
      // Answers are made of the input's own words, which may be as long as the input allows.
      const fitted = clipOverlongStrings(answer, result.error.issues);
      if (fitted !== answer) {
        answer = fitted;
        result = prompt.schema.safeParse(answer);
      }
    }
    if (!result.success) {
      const issues = result.error.issues.map((issue) => ({
        path: issue.path.map(String).join("."),
        code: issue.code,
        message: issue.message,
      }));
      throw invalid(prompt.kind, `the ${source} does not match the prompt's schema`, { issues });
    }
    const usage: Usage = {
      calls: 1,
      promptTokens: countChatTokens(prompt.messages),
      completionTokens: countTextTokens(JSON.stringify(answer) ?? ""),
    };
    const { seed: _seed, ...accounted } = attribution;
    await this.#onUsage?.({ ...accounted, ...usage, model: MODEL, estimated: true });
    return { value: result.data, usage, model: MODEL };
  }

  /**
   * Answers as {@linkcode complete} does, handing the answer's JSON to `options.onText` a few
   * characters at a time, as a remote model's stream would arrive (its text is the answer
   * serialised, so it parses back to the same value).
   */
  async stream<T>(
    prompt: Prompt<T>,
    attribution: Attribution,
    options: StreamOptions,
  ): Promise<Completion<T>> {
    const completion = await this.complete(prompt, attribution);
    const text = JSON.stringify(completion.value) ?? "null";
    for (let i = 0; i < text.length; i += STREAM_CHUNK) {
      options.onText(text.slice(i, i + STREAM_CHUNK));
      await Promise.resolve(); // let the receiver forward each piece before the next
    }
    return completion;
  }
}

/** What a call's choices are keyed by: seed (else world), agent and prompt kind. */
function choiceKey(kind: string, attribution: Attribution): string {
  const world = attribution.seed === undefined
    ? `world:${attribution.worldId ?? ""}`
    : `seed:${attribution.seed}`;
  return `${world}|${attribution.agentId ?? ""}|${kind}`;
}

/** Characters per piece of a streamed offline answer (about a few tokens). */
const STREAM_CHUNK = 12;

function synthesise(prompt: Prompt<unknown>): unknown {
  let schema = JSON_SCHEMAS.get(prompt.schema);
  if (schema === undefined) {
    schema = z.toJSONSchema(prompt.schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
    JSON_SCHEMAS.set(prompt.schema, schema);
  }
  const strings = collectStrings(prompt.input);
  const text = strings.length > 0
    ? strings.join(" ")
    : prompt.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
  return sampleJsonSchema(schema, { text });
}

/** The strings of a prompt's input, depth first, down to 8 levels and about 64 of them. */
function collectStrings(input: unknown): string[] {
  const out: string[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (depth > 8 || out.length > 64) return;
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) { for (const item of value) visit(item, depth + 1); }
    else if (typeof value === "object" && value !== null) {
      for (const item of Object.values(value)) visit(item, depth + 1);
    }
  };
  visit(input, 0);
  return out;
}

/**
 * A copy of `answer` whose strings that are longer than the schema allows (the `too_big` issues
 * of `issues`) are cut at a word boundary with "…"; `answer` itself when there are none.
 */
function clipOverlongStrings(answer: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  const long = issues.filter((issue) =>
    issue.code === "too_big" && issue.origin === "string" && issue.path.length > 0
  ) as z.core.$ZodIssueTooBig[];
  if (long.length === 0) return answer;
  const copy = structuredClone(answer);
  for (const issue of long) {
    const parent = issue.path.slice(0, -1).reduce<unknown>(
      (node, key) => (node as Record<PropertyKey, unknown> | null)?.[key],
      copy,
    ) as Record<PropertyKey, unknown> | null;
    const key = issue.path.at(-1)!;
    const value = parent?.[key];
    if (typeof value === "string") parent![key] = clipLine(value, Number(issue.maximum));
  }
  return copy;
}

function invalid(
  kind: string,
  reason: string,
  { issues = [], cause }: {
    issues?: { path: string; code: string; message: string }[];
    cause?: unknown;
  },
): ModelUnavailableError {
  return new ModelUnavailableError(
    "model_invalid_output",
    `Cannot answer prompt "${kind}" offline: ${reason}: register an offline responder for "${kind}"`,
    { details: { kind, model: MODEL, issues }, cause },
  );
}
