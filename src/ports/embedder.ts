/** @module Port: text embeddings. */
import type { Attribution, Usage } from "../domain/mod.ts";

/** Describes an embedder for `/health` and the start-up dimension check. */
export interface EmbedderInfo {
  mode: "local" | "openai";
  model: string;
  dimensions: number;
}

/** Embeddings of a batch of texts. */
export interface Embeddings {
  /** One unit-length vector per input text, in order. */
  vectors: Float32Array[];
  usage: Usage;
}

/**
 * Embeds texts in one batch. Vectors are normalised to unit length, so a dot product is the
 * cosine. Throws `model_timeout`, `model_unavailable` or `rate_limited` after retries.
 */
export interface Embedder {
  readonly info: EmbedderInfo;
  embed(texts: readonly string[], attribution: Attribution): Promise<Embeddings>;
  /**
   * Checks that the embedding endpoint answers and accepts the key, spending no tokens. Absent
   * for the local embedder.
   * @throws `model_unavailable` or `model_timeout` naming the endpoint.
   */
  probe?(): Promise<void>;
}
