/** @module An embedder wrapper that remembers recent texts' vectors (query embeddings repeat a lot). */
import { type Attribution, emptyUsage } from "../src/domain/mod.ts";
import type { Embedder, EmbedderInfo, Embeddings } from "../src/ports/mod.ts";

/** Options for {@linkcode CachedEmbedder}. */
export interface CachedEmbedderOptions {
  /** Most texts remembered; the least recently used go first. @default 5000 */
  capacity?: number;
}

/**
 * Wraps an embedder with an in-process LRU cache keyed by text. Cached texts cost no call;
 * the rest of a batch goes to the inner embedder in one call. Vectors are shared, so callers
 * must not modify them.
 */
export class CachedEmbedder implements Embedder {
  readonly info: EmbedderInfo;
  readonly #inner: Embedder;
  readonly #capacity: number;
  readonly #cache = new Map<string, Float32Array>();
  #hits = 0;

  constructor(inner: Embedder, options: CachedEmbedderOptions = {}) {
    this.#inner = inner;
    this.info = inner.info;
    this.#capacity = options.capacity ?? 5000;
    if (inner.probe) this.probe = () => inner.probe!();
  }

  /** The inner embedder's endpoint check, when it has one. */
  readonly probe?: () => Promise<void>;

  /** How many texts were served from the cache so far. */
  get hits(): number {
    return this.#hits;
  }

  async embed(texts: readonly string[], attribution: Attribution): Promise<Embeddings> {
    const vectors: (Float32Array | undefined)[] = texts.map((t) => this.#get(t));
    const missing = [...new Set(texts.filter((_, i) => vectors[i] === undefined))];
    this.#hits += texts.length - texts.filter((_, i) => vectors[i] === undefined).length;
    if (missing.length === 0) return { vectors: vectors as Float32Array[], usage: emptyUsage() };
    const fresh = await this.#inner.embed(missing, attribution);
    missing.forEach((text, i) => this.#put(text, fresh.vectors[i]));
    return {
      vectors: texts.map((t, i) => vectors[i] ?? this.#cache.get(t)!),
      usage: fresh.usage,
    };
  }

  #get(text: string): Float32Array | undefined {
    const hit = this.#cache.get(text);
    if (hit !== undefined) {
      this.#cache.delete(text); // re-insert: Map order is the LRU order
      this.#cache.set(text, hit);
    }
    return hit;
  }

  #put(text: string, vector: Float32Array): void {
    this.#cache.set(text, vector);
    if (this.#cache.size > this.#capacity) {
      this.#cache.delete(this.#cache.keys().next().value!);
    }
  }
}
