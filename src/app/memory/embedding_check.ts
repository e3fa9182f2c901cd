/** @module Start-up check that stored embeddings and the configured embedder agree. */
import { ConfigError, ConflictError } from "../../domain/mod.ts";
import type { DocumentKey, DocumentStore, EmbedderInfo } from "../../ports/mod.ts";

/** What the store remembers about the embedder that wrote its vectors. */
export interface EmbeddingStamp {
  model: string;
  dimensions: number;
}

const stampKey: DocumentKey = { collection: "meta", scope: "", id: "embedding" };

/**
 * Fails start-up when the vector index or the vectors already stored were made with another
 * embedder: mixing them would make every relevance score meaningless. The first start stamps
 * the store with the embedder in use.
 *
 * @param indexDimensions the dimension the vector index accepts.
 * @throws {ConfigError} naming SIMULACRA_EMBEDDING_MODEL / SIMULACRA_EMBEDDING_DIMENSIONS.
 */
export async function ensureEmbeddingMatches(
  documents: DocumentStore,
  indexDimensions: number,
  embedder: EmbedderInfo,
): Promise<void> {
  if (indexDimensions !== embedder.dimensions) {
    throw new ConfigError(
      `Cannot use embedder "${embedder.model}" (${embedder.dimensions} dimensions) with a vector index of ${indexDimensions} dimensions: set SIMULACRA_EMBEDDING_DIMENSIONS=${indexDimensions} with a model of that size, or use a vector index created with ${embedder.dimensions} dimensions`,
    );
  }
  const wanted: EmbeddingStamp = { model: embedder.model, dimensions: embedder.dimensions };
  let stored = await documents.get<EmbeddingStamp>(stampKey);
  if (!stored) {
    try {
      await documents.create(stampKey, wanted);
      return;
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      stored = await documents.get<EmbeddingStamp>(stampKey);
    }
  }
  const have = stored?.value;
  if (have && (have.model !== wanted.model || have.dimensions !== wanted.dimensions)) {
    throw new ConfigError(
      `Cannot use embedder "${wanted.model}" (${wanted.dimensions} dimensions): this store's memories were embedded with "${have.model}" (${have.dimensions} dimensions); set SIMULACRA_EMBEDDING_MODEL and SIMULACRA_EMBEDDING_DIMENSIONS back to those, or start with a new SIMULACRA_DATA_DIR / Upstash database`,
      { details: { stored: have, configured: wanted } },
    );
  }
}
