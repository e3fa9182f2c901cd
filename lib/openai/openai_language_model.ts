/** @module LanguageModel adapter for OpenAI-compatible chat completions (OpenAI, Ollama, vLLM…). */
import type { OpenAI } from "openai";
import { z } from "zod";
import {
  addUsage,
  type Attribution,
  ConfigError,
  ModelUnavailableError,
  type Usage,
  type UsageSink,
} from "../../src/domain/mod.ts";
import type {
  ChatMessage,
  Completion,
  LanguageModel,
  ModelInfo,
  Prompt,
  StreamOptions,
} from "../../src/ports/mod.ts";
import { probeModels, toModelError } from "./retry.ts";
import { OpenAiConnection, type OpenAiConnectionOptions } from "./_client.ts";
import { countChatTokens, countTextTokens } from "./token_count.ts";
import {
  type CallResult,
  type OutputFormat,
  outputFormat,
  parseAnswer,
  repairRequest,
  withInstruction,
} from "./_structured_output.ts";

/** Options for {@linkcode OpenAiLanguageModel}: the connection and the model of each tier. */
export interface OpenAiLanguageModelOptions extends OpenAiConnectionOptions {
  /** The model for the "main" tier (plans, insights, dialogue). */
  mainModel: string;
  /** The model for the "fast" tier (importance, emoji, yes/no). */
  fastModel: string;
}

export type { OutputIssue } from "./_structured_output.ts";

/** One chat completion request: the model, the output format, the messages, whom to bill. */
interface Call {
  model: string;
  format: OutputFormat;
  messages: readonly ChatMessage[];
  attribution: Attribution;
}

/**
 * Structured completions from an OpenAI-compatible server through the `openai` SDK.
 *
 * Sends the prompt's zod schema as a strict `response_format` JSON schema (or, when the schema
 * cannot be expressed that way, `{type: "json_object"}` with the schema in the system message),
 * then parses and validates the answer itself. Retries timeouts, connection errors, 429 and 5xx
 * with backoff; re-asks once, with the validation problems, when the answer is malformed.
 * Every answered call is reported to `onUsage`; tokens are counted with the o200k tokenizer
 * (`estimated: true`) when the server reports none.
 *
 * @example
 * ```ts ignore
 * import { OpenAiLanguageModel } from "./openai_language_model.ts";
 * const model = new OpenAiLanguageModel({
 *   apiKey: "sk-…",
 *   mainModel: "gpt-4.1",
 *   fastModel: "gpt-4.1-mini",
 * });
 * const { value } = await model.complete(prompt, { worldId: "smallville", operation: "importance" });
 * ```
 */
export class OpenAiLanguageModel implements LanguageModel {
  /** The mode and the model of each tier. */
  readonly info: ModelInfo;
  readonly #connection: OpenAiConnection;
  readonly #onUsage?: UsageSink;
  readonly #maxTokensKey: "max_completion_tokens" | "max_tokens";
  readonly #formats = new WeakMap<z.ZodType, Map<string, OutputFormat>>();

  /** @throws {ConfigError} `config_error` when the key, a model name or the base URL is unusable. */
  constructor(options: OpenAiLanguageModelOptions) {
    this.#connection = new OpenAiConnection(options, "model client");
    const { host } = this.#connection;
    for (const [tier, name] of [["main", options.mainModel], ["fast", options.fastModel]]) {
      if (name.trim() === "") {
        throw new ConfigError(
          `Cannot create the model client for "${host}": the ${tier} model name is empty: name a model`,
        );
      }
    }
    this.info = { mode: "openai", main: options.mainModel, fast: options.fastModel };
    this.#onUsage = options.onUsage;
    // OpenAI deprecated `max_tokens` (reasoning models reject it); other servers mostly know only it.
    this.#maxTokensKey = host === "api.openai.com" ? "max_completion_tokens" : "max_tokens";
  }

  /** Lists the endpoint's models once (no tokens): the deep health check. */
  probe(): Promise<void> {
    const { client, retry } = this.#connection;
    return probeModels(client, { host: retry.host, timeoutMs: retry.timeoutMs });
  }

  /**
   * Completes a prompt with the model of its tier and validates the answer against its schema.
   *
   * @throws {ModelUnavailableError} `model_timeout`, `rate_limited` or `model_unavailable` when
   * the server fails after retries; `model_invalid_output` when the answer is still invalid
   * after one repair attempt (details list the validation issues, never the prompt).
   */
  complete<T>(prompt: Prompt<T>, attribution: Attribution): Promise<Completion<T>> {
    return this.#complete(prompt, attribution);
  }

  /**
   * {@linkcode complete} with the first attempt streamed (`stream: true`, usage in the last
   * chunk): each content delta goes to `options.onText` as the server sends it. Only opening
   * the stream is retried; a stream that breaks midway fails with `model_unavailable`, since
   * its text was already handed on.
   *
   * @throws {ModelUnavailableError} as {@linkcode complete}.
   */
  stream<T>(
    prompt: Prompt<T>,
    attribution: Attribution,
    options: StreamOptions,
  ): Promise<Completion<T>> {
    return this.#complete(prompt, attribution, options.onText);
  }

  async #complete<T>(
    prompt: Prompt<T>,
    attribution: Attribution,
    onText?: (text: string) => void,
  ): Promise<Completion<T>> {
    const model = prompt.tier === "fast" ? this.info.fast : this.info.main;
    const format = this.#outputFormat(prompt.schema, prompt.kind);
    const messages = format.instruction === undefined
      ? prompt.messages
      : withInstruction(prompt.messages, format.instruction);

    const first = onText === undefined
      ? await this.#call(prompt, { model, format, messages, attribution })
      : await this.#callStreaming(prompt, { model, format, messages, attribution, onText });
    const parsed = parseAnswer(first, prompt.schema);
    if (parsed.ok) return { value: parsed.value, usage: first.usage, model };

    const repair: ChatMessage[] = [
      ...messages,
      { role: "assistant", content: first.content },
      { role: "user", content: repairRequest(parsed.repairHint) },
    ];
    const second = await this.#call(prompt, { model, format, messages: repair, attribution });
    const reparsed = parseAnswer(second, prompt.schema);
    const usage = addUsage(first.usage, second.usage);
    if (reparsed.ok) return { value: reparsed.value, usage, model };
    throw new ModelUnavailableError(
      "model_invalid_output",
      `Cannot use the answer to prompt "${prompt.kind}" from OpenAI-compatible model at "${this.#connection.host}": it does not match the prompt's schema after one repair attempt`,
      {
        details: {
          dependency: "openai",
          host: this.#connection.host,
          kind: prompt.kind,
          model,
          attempts: 2,
          usage,
          issues: reparsed.issues,
        },
      },
    );
  }

  async #call<T>(prompt: Prompt<T>, call: Call): Promise<CallResult> {
    const { model, format, messages, attribution } = call;
    const body: OpenAI.ChatCompletionCreateParamsNonStreaming = {
      model,
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      response_format: format.responseFormat,
      ...(prompt.maxTokens === undefined ? {} : { [this.#maxTokensKey]: prompt.maxTokens }),
    };
    const response = await this.#connection.call(
      failedAction(prompt.kind, model),
      () => this.#connection.client.chat.completions.create(body, { maxRetries: 0 }),
    );
    const message = response.choices[0]?.message;
    const content = message?.content ?? "";
    const usage = await this.#report({ messages, content, reported: response.usage }, {
      model,
      attribution,
    });
    return { content, refused: typeof message?.refusal === "string", usage };
  }

  /** The call's usage (the server's counts, else our own), reported to `onUsage`. */
  async #report(
    call: { messages: readonly ChatMessage[]; content: string; reported?: OpenAI.CompletionUsage },
    by: { model: string; attribution: Attribution },
  ): Promise<Usage> {
    const { reported } = call;
    const estimated = typeof reported?.prompt_tokens !== "number" ||
      typeof reported?.completion_tokens !== "number";
    const usage: Usage = {
      calls: 1,
      promptTokens: estimated ? countChatTokens(call.messages) : reported!.prompt_tokens,
      completionTokens: estimated ? countTextTokens(call.content) : reported!.completion_tokens,
    };
    const cached = reported?.prompt_tokens_details?.cached_tokens;
    if (!estimated && typeof cached === "number" && cached > 0) usage.cachedPromptTokens = cached;
    await this.#onUsage?.({ ...by.attribution, ...usage, model: by.model, estimated });
    return usage;
  }

  async #callStreaming<T>(
    prompt: Prompt<T>,
    call: Call & { onText: (text: string) => void },
  ): Promise<CallResult> {
    const { model, messages } = call;
    const body: OpenAI.ChatCompletionCreateParamsStreaming = {
      model,
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      response_format: call.format.responseFormat,
      stream: true,
      stream_options: { include_usage: true },
      ...(prompt.maxTokens === undefined ? {} : { [this.#maxTokensKey]: prompt.maxTokens }),
    };
    const action = failedAction(prompt.kind, model);
    const stream = await this.#connection.call(
      action,
      () => this.#connection.client.chat.completions.create(body, { maxRetries: 0 }),
    );
    let content = "";
    let refused = false;
    let reported: OpenAI.CompletionUsage | undefined;
    try {
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta;
        if (typeof delta?.refusal === "string") refused = true;
        if (typeof delta?.content === "string" && delta.content !== "") {
          content += delta.content;
          call.onText(delta.content);
        }
        reported = chunk.usage ?? reported;
      }
    } catch (error) {
      throw toModelError(error, { ...this.#connection.retry, action, attempts: 1 });
    }
    const usage = await this.#report({ messages, content, reported }, {
      model,
      attribution: call.attribution,
    });
    return { content, refused, usage };
  }

  #outputFormat(schema: z.ZodType, kind: string): OutputFormat {
    let byKind = this.#formats.get(schema);
    if (byKind === undefined) this.#formats.set(schema, byKind = new Map());
    let format = byKind.get(kind);
    if (format === undefined) byKind.set(kind, format = outputFormat(schema, kind));
    return format;
  }
}

/** The failed action named in a completion's error. */
function failedAction(kind: string, model: string): string {
  return `Cannot complete prompt "${kind}" with model "${model}"`;
}
