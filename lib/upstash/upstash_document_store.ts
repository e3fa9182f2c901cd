/** @module The hosted DocumentStore: versioned JSON documents in Upstash Redis hashes. */
import { ConflictError } from "../../src/domain/mod.ts";
import type {
  DocumentKey,
  DocumentStore,
  FencedWrite,
  ReplaceOptions,
  Versioned,
} from "../../src/ports/mod.ts";
import { decodeDocument, encodeDocument } from "./layout.ts";
import { ScriptedStore, type ScriptedStoreConfig } from "./_scripted_store.ts";
import { pairs, redisCall } from "./redis_calls.ts";
import { createDocumentFenced } from "./scripts/create_document_fenced.ts";
import { replaceDocument } from "./scripts/replace_document.ts";

/** Configuration of {@linkcode UpstashDocumentStore}. */
export type UpstashDocumentStoreConfig = ScriptedStoreConfig;

/**
 * Keeps each (collection, scope) as one hash, field = document id, value =
 * `<version>:<JSON>`. `create` is a single HSETNX (a script when fenced) and `replace` a script, so both are atomic;
 * `list` is one HGETALL. Throws `store_unavailable` when Upstash fails.
 */
export class UpstashDocumentStore extends ScriptedStore implements DocumentStore {
  get<T>(key: DocumentKey): Promise<Versioned<T> | null> {
    return redisCall("read a document", async () => {
      // Batched: documents read together (e.g. every agent's conversation state) share a request.
      const raw: unknown = await this.reads.read((p) =>
        p.hget(this.#key(key.collection, key.scope), key.id)
      );
      return raw === null ? null : decodeDocument<T>(key.id, raw);
    });
  }

  list<T>(collection: string, scope: string): Promise<Versioned<T>[]> {
    return redisCall("list documents", async () => {
      // Batched: the client sends HGETALL alone otherwise, and lists often start together.
      const raw = await this.reads.read((p) => p.hgetall(this.#key(collection, scope)));
      return pairs(raw, "list documents")
        .map(([id, value]) => decodeDocument<T>(id, value))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    });
  }

  async create<T>(key: DocumentKey, value: T, options: FencedWrite = {}): Promise<Versioned<T>> {
    const { fence } = options;
    const hash = this.#key(key.collection, key.scope);
    const created = fence
      ? await this.scripts.run(createDocumentFenced, { keys: this.keys, key, value, fence })
      : await redisCall(
        "create a document",
        async () => Number(await this.redis.hsetnx(hash, key.id, encodeDocument(1, value))) === 1,
      );
    if (!created) {
      throw new ConflictError(
        `Cannot create document "${key.id}" in "${key.collection}": it exists already`,
      );
    }
    return { id: key.id, value, version: 1 };
  }

  replace<T>(
    key: DocumentKey,
    value: T,
    options: ReplaceOptions,
  ): Promise<Versioned<T> | null> {
    return this.scripts.run(replaceDocument<T>(), {
      keys: this.keys,
      key,
      value,
      expectedVersion: options.expectedVersion,
      fence: options.fence,
    });
  }

  delete(key: DocumentKey): Promise<boolean> {
    return redisCall("delete a document", async () => {
      const removed: unknown = await this.redis.hdel(this.#key(key.collection, key.scope), key.id);
      return Number(removed) === 1;
    });
  }

  deleteAll(collection: string, scope: string): Promise<number> {
    const key = this.#key(collection, scope);
    return redisCall("delete documents", async () => {
      const count = Number(await this.redis.hlen(key));
      await this.redis.del(key);
      return count;
    });
  }

  #key(collection: string, scope: string): string {
    return this.keys.documents(collection, scope);
  }
}
