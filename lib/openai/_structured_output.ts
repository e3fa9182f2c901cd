/**
 * @module How the OpenAI adapter asks for and reads structured answers: the `response_format`
 * for a prompt's schema, and the parsing, validation and repair request of the model's answer.
 */
import type { OpenAI } from "openai";
import { zodResponseFormat } from "openai/helpers/zod";
import { z } from "zod";
import type { ChatMessage } from "../../src/ports/mod.ts";
import { stripUnsafeJson, type Usage } from "../../src/domain/mod.ts";

/** A problem with a model's answer, as reported in `model_invalid_output` details. */
export interface OutputIssue {
  /** Where in the answer, e.g. "scores.0"; empty for the whole answer. */
  path: string;
  code: string;
  message: string;
}

export interface OutputFormat {
  responseFormat: OpenAI.ChatCompletionCreateParams["response_format"];
  /** Appended to the system message when the schema cannot go in `response_format`. */
  instruction?: string;
}

export interface CallResult {
  content: string;
  refused: boolean;
  usage: Usage;
}

export type Parsed<T> = { ok: true; value: T } | {
  ok: false;
  issues: OutputIssue[];
  repairHint: string;
};

const FENCED_JSON = /```(?:json|JSON)?[ \t]*\r?\n?([\s\S]*?)\r?\n?[ \t]*```/;

/**
 * The `response_format` for a schema: a strict JSON schema when `zodResponseFormat` accepts it,
 * else JSON mode with the schema spelled out (root arrays, records, unions, `.optional()`
 * without `.nullable()` and transforms are refused by strict structured outputs).
 */
export function outputFormat(schema: z.ZodType, kind: string): OutputFormat {
  const name = kind.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "answer";
  try {
    return { responseFormat: zodResponseFormat(schema, name) };
  } catch {
    let jsonSchema: string | undefined;
    try {
      jsonSchema = JSON.stringify(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }));
    } catch {
      jsonSchema = undefined;
    }
    const instruction = jsonSchema === undefined
      ? "Answer with one JSON value and nothing else."
      : `Answer with one JSON value and nothing else. It must match this JSON schema:\n\`\`\`json\n${jsonSchema}\n\`\`\``;
    return { responseFormat: { type: "json_object" }, instruction };
  }
}

/** Appends the instruction to the first system message (keeping its `[prompt:…]` first line). */
export function withInstruction(
  messages: readonly ChatMessage[],
  instruction: string,
): ChatMessage[] {
  const index = messages.findIndex((m) => m.role === "system");
  if (index === -1) return [{ role: "system", content: instruction }, ...messages];
  return messages.map((m, i) =>
    i === index ? { role: m.role, content: `${m.content}\n\n${instruction}` } : m
  );
}

export function parseAnswer<T>(call: CallResult, schema: z.ZodType<T>): Parsed<T> {
  if (call.refused && call.content === "") {
    const issue = { path: "", code: "refusal", message: "The model refused to answer" };
    return { ok: false, issues: [issue], repairHint: "- You refused to answer." };
  }
  const fenced = FENCED_JSON.exec(call.content);
  const text = (fenced?.[1] ?? call.content).trim();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const issue = { path: "", code: "invalid_json", message: "The answer is not valid JSON" };
    const reason = error instanceof SyntaxError ? error.message : "it cannot be parsed";
    return { ok: false, issues: [issue], repairHint: `- The answer is not valid JSON: ${reason}` };
  }
  // What a model writes is stored and exported: it carries no text the JSON API (or an import)
  // would refuse, such as control characters.
  const result = schema.safeParse(stripUnsafeJson(json));
  if (result.success) return { ok: true, value: result.data };
  const issues = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    code: issue.code,
    message: issue.message,
  }));
  const repairHint = issues
    .map((issue) =>
      `- At ${issue.path === "" ? "the top level" : `"${issue.path}"`}: ${issue.message}`
    )
    .join("\n");
  return { ok: false, issues, repairHint };
}

export function repairRequest(problems: string): string {
  return `Your previous answer cannot be used. Problems:\n${problems}\n\nAnswer again with only the corrected JSON value, matching the required schema exactly.`;
}
