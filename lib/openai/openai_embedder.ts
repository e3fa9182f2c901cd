/** @module Embedder adapter for OpenAI-compatible embedding endpoints (OpenAI, Ollama, vLLM…). */
import { OpenAI } from "openai";
import { ConfigError, ModelUnavailableError } from "../../src/errors.ts";
import type { Embedder, EmbedderInfo, Embeddings } from "../../src/ports/embedder.ts";
import {
  addUsage,
  type Attribution,
  emptyUsage,
  type Usage,
  type UsageSink,
} from "../../src/model/usage.ts";
import { hostOf, probeModels, withRetries } from "./retry.ts";
import { countTextTokens } from "./token_count.ts";

/** Options for {@linkcode OpenAiEmbedder}. */
export interface OpenAiEmbedderOptions {
  /** The API key; servers that need none (Ollama) accept any non-empty value. */
  apiKey: string;
  /**
   * The server's base URL, ending in `/v1`.
   * @default "https://api.openai.com/v1"
   */
  baseURL?: string;
  /** The embedding model, e.g. "text-embedding-3-small". */
  model: string;
  /**
   * The vector length. Sent as the request's `dimensions` (except to text-embedding-ada-002,
   * which refuses it) and checked against every answer.
   * @default the model's native length for OpenAI's models; required for others
   */
  dimensions?: number;
  /**
   * The timeout of one attempt, in milliseconds.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Retries after the first attempt on timeouts, connection errors, 429 and 5xx.
   * @default 3
   */
  maxRetries?: number;
  /**
   * Receives every request's usage.
   * @default none
   */
  onUsage?: UsageSink;
  /**
   * The fetch the SDK uses.
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
  /**
   * Waits between retries; tests pass a fake.
   * @default a setTimeout-based sleep
   */
  sleep?: (ms: number) => Promise<void>;
  /**
   * The jitter source of the backoff, a number in [0, 1).
   * @default Math.random
   */
  random?: () => number;
}

/** OpenAI accepts at most 2048 inputs per embeddings request. */
export const MAX_INPUTS_PER_REQUEST = 2048;

const NATIVE_DIMENSIONS: Record<string, number> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};

/**
 * Embeddings from an OpenAI-compatible server through the `openai` SDK: one request per 2048
 * texts, base64 or float answers (the SDK decodes both), vectors normalised to unit length and
 * checked against the configured dimension. Retries like {@linkcode withRetries}.
 *
 * @example
 * ```ts ignore
 * import { OpenAiEmbedder } from "./openai_embedder.ts";
 * const embedder = new OpenAiEmbedder({ apiKey: "sk-…", model: "text-embedding-3-small" });
 * const { vectors } = await embedder.embed(["Isabella is planning a party"], {
 *   operation: "memory.embed",
 * });
 * ```
 */
export class OpenAiEmbedder implements Embedder {
  /** The mode, the model and the vector length. */
  readonly info: EmbedderInfo;
  readonly #client: OpenAI;
  readonly #host: string;
  readonly #sendDimensions: boolean;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #onUsage?: UsageSink;
  readonly #sleep?: (ms: number) => Promise<void>;
  readonly #random?: () => number;

  /**
   * @throws {ConfigError} `config_error` when the key or model is empty, the base URL is not a
   * URL, or the dimension is unknown or not a positive integer.
   */
  constructor(options: OpenAiEmbedderOptions) {
    const baseURL = options.baseURL ?? "https://api.openai.com/v1";
    this.#host = hostOf(baseURL, "OpenAI");
    const action = `Cannot create the embedding client for "${this.#host}"`;
    if (options.apiKey.trim() === "") {
      throw new ConfigError(
        `${action}: the API key is empty: set an API key (any non-empty value for servers that need none)`,
      );
    }
    if (options.model.trim() === "") {
      throw new ConfigError(`${action}: the model name is empty: name an embedding model`);
    }
    const dimensions = options.dimensions ?? NATIVE_DIMENSIONS[options.model];
    if (dimensions === undefined || !Number.isInteger(dimensions) || dimensions <= 0) {
      throw new ConfigError(
        `${action}: the dimension of model "${options.model}" is unknown or invalid: set SIMULACRA_EMBEDDING_DIMENSIONS to the model's vector length`,
      );
    }
    this.info = { mode: "openai", model: options.model, dimensions };
    this.#sendDimensions = options.dimensions !== undefined &&
      options.model !== "text-embedding-ada-002";
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxRetries = options.maxRetries ?? 3;
    this.#onUsage = options.onUsage;
    this.#sleep = options.sleep;
    this.#random = options.random;
    this.#client = new OpenAI({
      apiKey: options.apiKey,
      baseURL,
      organization: null,
      project: null,
      webhookSecret: null,
      timeout: this.#timeoutMs,
      maxRetries: 0,
      fetch: options.fetch,
    });
  }

  /** Lists the endpoint's models once (no tokens): the deep health check. */
  probe(): Promise<void> {
    return probeModels(this.#client, { host: this.#host, timeoutMs: this.#timeoutMs });
  }

  /**
   * Embeds texts, in order, as unit-length vectors.
   *
   * @throws {ModelUnavailableError} `model_timeout`, `rate_limited` or `model_unavailable` after
   * retries, or `model_unavailable` when the answer has the wrong number of vectors.
   * @throws {ConfigError} `config_error` when the server's vectors do not have the configured
   * dimension.
   */
  async embed(texts: readonly string[], attribution: Attribution): Promise<Embeddings> {
    const vectors: Float32Array[] = [];
    let usage = emptyUsage();
    for (let start = 0; start < texts.length; start += MAX_INPUTS_PER_REQUEST) {
      const batch = texts.slice(start, start + MAX_INPUTS_PER_REQUEST);
      const result = await this.#embedBatch(batch, attribution);
      vectors.push(...result.vectors);
      usage = addUsage(usage, result.usage);
    }
    return { vectors, usage };
  }

  async #embedBatch(texts: readonly string[], attribution: Attribution): Promise<Embeddings> {
    const model = this.info.model;
    const response = await withRetries(
      () =>
        this.#client.embeddings.create({
          model,
          // OpenAI refuses empty strings; a space embeds as "nothing" just as well.
          input: texts.map((text) => (text === "" ? " " : text)),
          ...(this.#sendDimensions ? { dimensions: this.info.dimensions } : {}),
        }, { maxRetries: 0 }),
      {
        action: `Cannot embed ${texts.length} text(s) with model "${model}"`,
        host: this.#host,
        timeoutMs: this.#timeoutMs,
        maxRetries: this.#maxRetries,
        sleep: this.#sleep,
        random: this.#random,
      },
    );
    const reported = response.usage?.prompt_tokens;
    const estimated = typeof reported !== "number";
    const usage: Usage = {
      calls: 1,
      promptTokens: estimated ? texts.reduce((n, text) => n + countTextTokens(text), 0) : reported,
      completionTokens: 0,
    };
    await this.#onUsage?.({ ...attribution, ...usage, model, estimated });

    const data = [...(response.data ?? [])].sort((a, b) => a.index - b.index);
    if (data.length !== texts.length) {
      throw new ModelUnavailableError(
        "model_unavailable",
        `Cannot use embeddings from model "${model}" at "${this.#host}": got ${data.length} vectors for ${texts.length} texts: check that the model is an embedding model`,
        { details: { dependency: "openai", host: this.#host, model } },
      );
    }
    const vectors = data.map((item) => toVector(item.embedding));
    for (const vector of vectors) {
      if (vector.length !== this.info.dimensions) {
        throw new ConfigError(
          `Cannot use embeddings from model "${model}" at "${this.#host}": they have ${vector.length} dimensions, not ${this.info.dimensions}: set SIMULACRA_EMBEDDING_DIMENSIONS=${vector.length} or choose a model with ${this.info.dimensions} dimensions`,
          { details: { expected: this.info.dimensions, actual: vector.length, model } },
        );
      }
      normalise(vector);
    }
    return { vectors, usage };
  }
}

/** A vector from the SDK: a float array, or base64 float32 if the SDK left it encoded. */
function toVector(embedding: number[] | string): Float32Array {
  if (typeof embedding !== "string") return Float32Array.from(embedding);
  const binary = atob(embedding);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const view = new DataView(bytes.buffer);
  const out = new Float32Array(Math.floor(bytes.length / 4));
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** Scales a vector to unit length in place; a zero vector stays zero. */
function normalise(vector: Float32Array): void {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (sum === 0) return;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] *= scale;
}
