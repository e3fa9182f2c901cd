/** @module Embedder adapter for OpenAI-compatible embedding endpoints (OpenAI, Ollama, vLLM…). */
import {
  addUsage,
  type Attribution,
  ConfigError,
  emptyUsage,
  ModelUnavailableError,
  type Usage,
  type UsageSink,
} from "../../src/domain/mod.ts";
import type { Embedder, EmbedderInfo, Embeddings } from "../../src/ports/mod.ts";
import { probeModels } from "./retry.ts";
import { OpenAiConnection, type OpenAiConnectionOptions } from "./_client.ts";
import { countTextTokens } from "./token_count.ts";

/** Options for {@linkcode OpenAiEmbedder}: the connection, the model and its vector length. */
export interface OpenAiEmbedderOptions extends OpenAiConnectionOptions {
  /** The embedding model, e.g. "text-embedding-3-small". */
  model: string;
  /**
   * The vector length. Sent as the request's `dimensions` (except to text-embedding-ada-002,
   * which refuses it) and checked against every answer.
   * @default the model's native length for OpenAI's models; required for others
   */
  dimensions?: number;
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
  readonly #connection: OpenAiConnection;
  readonly #sendDimensions: boolean;
  readonly #onUsage?: UsageSink;

  /**
   * @throws {ConfigError} `config_error` when the key or model is empty, the base URL is not a
   * URL, or the dimension is unknown or not a positive integer.
   */
  constructor(options: OpenAiEmbedderOptions) {
    this.#connection = new OpenAiConnection(options, "embedding client");
    const action = `Cannot create the embedding client for "${this.#connection.host}"`;
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
    this.#onUsage = options.onUsage;
  }

  /** Lists the endpoint's models once (no tokens): the deep health check. */
  probe(): Promise<void> {
    const { client, retry } = this.#connection;
    return probeModels(client, { host: retry.host, timeoutMs: retry.timeoutMs });
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
    const response = await this.#connection.call(
      `Cannot embed ${texts.length} text(s) with model "${model}"`,
      () =>
        this.#connection.client.embeddings.create({
          model,
          // OpenAI refuses empty strings; a space embeds as "nothing" just as well.
          input: texts.map((text) => (text === "" ? " " : text)),
          ...(this.#sendDimensions ? { dimensions: this.info.dimensions } : {}),
        }, { maxRetries: 0 }),
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
        `Cannot use embeddings from model "${model}" at "${this.#connection.host}": got ${data.length} vectors for ${texts.length} texts: check that the model is an embedding model`,
        { details: { dependency: "openai", host: this.#connection.host, model } },
      );
    }
    const vectors = data.map((item) => toVector(item.embedding));
    for (const vector of vectors) {
      if (vector.length !== this.info.dimensions) {
        throw new ConfigError(
          `Cannot use embeddings from model "${model}" at "${this.#connection.host}": they have ${vector.length} dimensions, not ${this.info.dimensions}: set SIMULACRA_EMBEDDING_DIMENSIONS=${vector.length} or choose a model with ${this.info.dimensions} dimensions`,
          { details: { expected: this.info.dimensions, actual: vector.length, model } },
        );
      }
    }
    return { vectors: vectors.map(unitLength), usage };
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

/** The vector scaled to unit length; a zero vector stays zero. */
function unitLength(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  return vector.map((value) => value * scale);
}
