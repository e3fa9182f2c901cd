/** @module Embedder that runs in-process: hashed lexical features, no model and no network. */
import type { Embedder, EmbedderInfo, Embeddings } from "../../src/ports/mod.ts";
import { type Attribution, emptyUsage } from "../../src/domain/mod.ts";
import { contentStems, fnv1a, stem, words } from "./text.ts";

/** Options for {@linkcode LocalEmbedder}. */
export interface LocalEmbedderOptions {
  /**
   * The vector length.
   * @default 384
   */
  dimensions?: number;
}

// Relative weights of the three feature families. Stems carry the topic; bigrams reward shared
// phrases ("coffee machine"); character trigrams catch spelling variants the stemmer misses.
const STEM_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.6;
const TRIGRAM_WEIGHT = 0.3;
// A stem's first five letters: "mayor" meets "mayoral", "decor" meets "decorations".
const PREFIX_WEIGHT = 0.5;
const PREFIX_LETTERS = 5;
// FNV-1a offset bases that keep the families' hashes apart.
const STEM_SEED = 0x811c9dc5;
const BIGRAM_SEED = 0x050c5d1f;
const TRIGRAM_SEED = 0x2f5a6c3b;
const PREFIX_SEED = 0x6b43a9b5;
/** The token of a text with no visible characters at all. */
const BLANK = "\u2205";

/**
 * Deterministic lexical-semantic embeddings for offline use: lower-cased words, stop words
 * removed, a light stemmer, then feature hashing (FNV-1a, signed) of stems, word bigrams and
 * character trigrams into `dimensions` buckets, plus a stem's first five letters, with sub-linear term frequency (1 + ln tf) and
 * L2 normalisation. Irregular past forms count as their base ("lost" as "lose"). Texts that share
 * words or stems get clearly higher cosines than unrelated texts; synonyms do not (use a real
 * embedding model for that). A text with no letters or digits ("!!!", "🙂") is embedded from its
 * characters, so every text gets a non-zero direction. Free: usage is always zero.
 *
 * @example
 * ```ts
 * import { LocalEmbedder } from "./local_embedder.ts";
 * const embedder = new LocalEmbedder();
 * const { vectors } = await embedder.embed(["Isabella plans a party"], { operation: "demo" });
 * vectors[0].length; // 384
 * ```
 */
export class LocalEmbedder implements Embedder {
  /** The mode, the model ("local-hash-v2") and the vector length. */
  readonly info: EmbedderInfo;

  /** @throws {RangeError} When `dimensions` is not a positive integer. */
  constructor(options: LocalEmbedderOptions = {}) {
    const dimensions = options.dimensions ?? 384;
    if (!Number.isInteger(dimensions) || dimensions <= 0) {
      throw new RangeError(`Cannot create a local embedder with ${dimensions} dimensions`);
    }
    this.info = { mode: "local", model: "local-hash-v2", dimensions };
  }

  /** Embeds texts, in order, as unit-length vectors. */
  embed(texts: readonly string[], _attribution: Attribution): Promise<Embeddings> {
    return Promise.resolve({
      vectors: texts.map((text) => this.vector(text)),
      usage: emptyUsage(),
    });
  }

  /** The unit-length vector of one text, synchronously. */
  vector(text: string): Float32Array {
    const dimensions = this.info.dimensions;
    const out = new Float32Array(dimensions);
    let stems = contentStems(text);
    // A text of only stop words ("Who is there?") still deserves a direction.
    if (stems.length === 0) stems = words(text).map(stem);
    // No words at all ("!!!", "🙂"): its characters, so it still finds texts like it.
    if (stems.length === 0) stems = symbols(text);

    // Term frequencies per feature in a small open-addressing table keyed by the feature's hash
    // (hashing with a per-family seed avoids building feature strings).
    let capacity = 16;
    let features = 0;
    for (const current of stems) features += current.length + 3;
    while (capacity < features * 2) capacity *= 2;
    const keys = new Uint32Array(capacity);
    const tfs = new Uint16Array(capacity);
    const weights = new Float32Array(capacity);
    const mask = capacity - 1;
    const count = (hash: number, weight: number) => {
      const key = hash === 0 ? 1 : hash;
      let slot = key & mask;
      while (keys[slot] !== 0 && keys[slot] !== key) slot = (slot + 1) & mask;
      keys[slot] = key;
      weights[slot] = weight;
      tfs[slot]++;
    };
    for (let i = 0; i < stems.length; i++) {
      const current = stems[i];
      count(fnv1a(current, STEM_SEED), STEM_WEIGHT);
      if (current.length >= PREFIX_LETTERS) {
        count(fnv1a(current.slice(0, PREFIX_LETTERS), PREFIX_SEED), PREFIX_WEIGHT);
      }
      if (i + 1 < stems.length) {
        count(fnv1a(stems[i + 1], fnv1a(current, BIGRAM_SEED)), BIGRAM_WEIGHT);
      }
      // Trigrams of "<stem>", the angle brackets marking the word's edges.
      const last = current.length + 1;
      for (let j = 0; j + 2 <= last; j++) {
        let hash = TRIGRAM_SEED;
        for (let k = j; k < j + 3; k++) {
          const code = k === 0 ? 60 : k === last ? 62 : current.charCodeAt(k - 1);
          hash = Math.imul(hash ^ code, 0x01000193) >>> 0;
        }
        count(hash, TRIGRAM_WEIGHT);
      }
    }
    for (let slot = 0; slot < capacity; slot++) {
      const key = keys[slot];
      if (key === 0) continue;
      const sign = key & 0x80000000 ? -1 : 1;
      out[(key & 0x7fffffff) % dimensions] += sign * weights[slot] * (1 + Math.log(tfs[slot]));
    }

    let sum = 0;
    for (let i = 0; i < dimensions; i++) sum += out[i] * out[i];
    if (sum > 0) {
      const scale = 1 / Math.sqrt(sum);
      for (let i = 0; i < dimensions; i++) out[i] *= scale;
    }
    return out;
  }
}

/** The visible characters of a text, one token each (whole emoji kept together); never empty. */
function symbols(text: string): string[] {
  const out = [...text.replace(/\s+/gu, "")];
  return out.length > 0 ? out : [BLANK];
}
