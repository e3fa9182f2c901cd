/** @module The hosted DocumentStore: versioned JSON documents in Upstash Redis hashes. */
import { ConflictError, LeaseLostError } from "../../src/errors.ts";
import type { DocumentKey, DocumentStore, Versioned } from "../../src/ports/document_store.ts";
import type { FencedWrite } from "../../src/ports/lock.ts";
import {
  type LuaScript,
  luaScript,
  pairs,
  ReadBatcher,
  redisCall,
  type RedisClient,
  redisKey,
  unexpectedReply,
} from "./_upstash_calls.ts";
import { lockKey } from "./upstash_lock.ts";

/** Configuration of {@linkcode UpstashDocumentStore}. */
export interface UpstashDocumentStoreConfig {
  redis: RedisClient;
  /** Shared with the other stores so reads started together go out together. */
  reads?: ReadBatcher;
  /** Prepended to every key, so deployments can share a database. */
  keyPrefix: string;
}

// Compare-and-set in one script: Redis runs a script without interleaving any other command,
// so the version check and the write cannot be split by a concurrent writer. KEYS: the hash,
// the fence's lock key. ARGV: id, expected version, new value, the fence's token ("" for none).
// Returns -1 when the fence is not held, 0 on a version mismatch, else the new version.
const REPLACE = `
if ARGV[4] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[4] then return -1 end
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 0 end
local version = tonumber(string.match(current, '^(%d+):'))
if version ~= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return version + 1
`;

// A fenced create. KEYS: the hash, the fence's lock key. ARGV: id, value, the fence's token.
// Returns -1 when the fence is not held, 0 when the document exists, 1 when created.
const CREATE_FENCED = `
if redis.call('GET', KEYS[2]) ~= ARGV[3] then return -1 end
return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
`;

/**
 * Keeps each (collection, scope) as one hash, field = document id, value =
 * `<version>:<JSON>`. `create` is a single HSETNX (a script when fenced) and `replace` a script, so both are atomic;
 * `list` is one HGETALL. Throws `store_unavailable` when Upstash fails.
 */
export class UpstashDocumentStore implements DocumentStore {
  readonly #redis: RedisClient;
  readonly #reads: ReadBatcher;
  readonly #prefix: string;
  readonly #replace: LuaScript;
  readonly #createFenced: LuaScript;

  constructor(config: UpstashDocumentStoreConfig) {
    this.#redis = config.redis;
    this.#reads = config.reads ?? new ReadBatcher(config.redis);
    this.#prefix = config.keyPrefix;
    this.#replace = luaScript(config.redis, REPLACE);
    this.#createFenced = luaScript(config.redis, CREATE_FENCED);
  }

  get<T>(key: DocumentKey): Promise<Versioned<T> | null> {
    return redisCall("read a document", async () => {
      // Batched: documents read together (e.g. every agent's conversation state) share a request.
      const raw: unknown = await this.#reads.read((p) =>
        p.hget(this.#key(key.collection, key.scope), key.id)
      );
      return raw === null ? null : decodeDocument<T>(key.id, raw);
    });
  }

  list<T>(collection: string, scope: string): Promise<Versioned<T>[]> {
    return redisCall("list documents", async () => {
      // Batched: the client sends HGETALL alone otherwise, and lists often start together.
      const raw = await this.#reads.read((p) => p.hgetall(this.#key(collection, scope)));
      return pairs(raw, "list documents")
        .map(([id, value]) => decodeDocument<T>(id, value))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    });
  }

  create<T>(key: DocumentKey, value: T, options: FencedWrite = {}): Promise<Versioned<T>> {
    const { fence } = options;
    const hash = this.#key(key.collection, key.scope);
    return redisCall("create a document", async () => {
      const created: unknown = fence
        ? await this.#createFenced.exec(
          [hash, lockKey(this.#prefix, fence.key)],
          [key.id, encodeDocument(1, value), fence.token],
        )
        : await this.#redis.hsetnx(hash, key.id, encodeDocument(1, value));
      if (Number(created) < 0) throw new LeaseLostError(fence!.key);
      if (Number(created) !== 1) {
        throw new ConflictError(
          `Cannot create document "${key.id}" in "${key.collection}": it exists already`,
        );
      }
      return { id: key.id, value, version: 1 };
    });
  }

  replace<T>(
    key: DocumentKey,
    value: T,
    expectedVersion: number,
    options: FencedWrite = {},
  ): Promise<Versioned<T> | null> {
    const { fence } = options;
    return redisCall("replace a document", async () => {
      const version: unknown = await this.#replace.exec(
        [this.#key(key.collection, key.scope), lockKey(this.#prefix, fence?.key ?? "-")],
        [
          key.id,
          String(expectedVersion),
          encodeDocument(expectedVersion + 1, value),
          fence?.token ?? "",
        ],
      );
      const next = Number(version);
      if (!Number.isInteger(next)) unexpectedReply("replace a document");
      if (next < 0) throw new LeaseLostError(fence!.key);
      return next === 0 ? null : { id: key.id, value, version: next };
    });
  }

  delete(key: DocumentKey): Promise<boolean> {
    return redisCall("delete a document", async () => {
      const removed: unknown = await this.#redis.hdel(this.#key(key.collection, key.scope), key.id);
      return Number(removed) === 1;
    });
  }

  deleteAll(collection: string, scope: string): Promise<number> {
    const key = this.#key(collection, scope);
    return redisCall("delete documents", async () => {
      const count = Number(await this.#redis.hlen(key));
      await this.#redis.del(key);
      return count;
    });
  }

  #key(collection: string, scope: string): string {
    return documentHashKey(this.#prefix, collection, scope);
  }
}

/** The Redis hash holding a collection's documents within a scope. */
export function documentHashKey(prefix: string, collection: string, scope: string): string {
  return redisKey(prefix, "doc", collection, scope);
}

/** A document's stored field value: `<version>:<JSON>`. */
export function encodeDocument(version: number, value: unknown): string {
  return `${version}:${JSON.stringify(value) ?? "null"}`;
}

/** Reads a stored field value back (see {@linkcode encodeDocument}). */
export function decodeDocument<T>(id: string, raw: unknown): Versioned<T> {
  const text = String(raw);
  const colon = text.indexOf(":");
  const version = Number(text.slice(0, colon));
  if (colon < 1 || !Number.isInteger(version)) unexpectedReply("read a document");
  return { id, value: JSON.parse(text.slice(colon + 1)) as T, version };
}
