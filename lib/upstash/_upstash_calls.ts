/**
 * @module Private to lib/upstash: the narrow client types the stores use, the translation of
 * client failures into `store_unavailable`, and key building.
 */
import type { Redis } from "@upstash/redis";
import type { Index } from "@upstash/vector";
import { SimulacraError, StoreUnavailableError } from "../../src/errors.ts";

/**
 * The part of the Redis client the stores use. The client is built with
 * `automaticDeserialization: false`, so replies are the raw strings, numbers and arrays Redis
 * sent (the typed generics of these methods do not hold; callers treat results as `unknown`).
 */
export type RedisClient = Pick<
  Redis,
  | "createScript"
  | "eval"
  | "get"
  | "set"
  | "hget"
  | "hgetall"
  | "hmget"
  | "hset"
  | "hsetnx"
  | "hdel"
  | "hlen"
  | "del"
  | "scan"
  | "zrem"
  | "zcard"
  | "zrange"
  | "zadd"
  | "zremrangebylex"
  | "pexpire"
  | "zmscore"
  | "multi"
  | "pipeline"
  | "ping"
>;

/** A pipeline of the Redis client: commands queued, then sent in one request by `exec`. */
export type RedisPipeline = ReturnType<RedisClient["pipeline"]>;

interface QueuedRead {
  add: (pipeline: RedisPipeline) => void;
  /** Settles before `add` is called (a script's hash being computed). */
  ready?: Promise<unknown>;
  resolve: (reply: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Sends the reads the stores queue in one turn of the event loop as one pipelined request. The
 * client pipelines some commands on its own but sends others (ZRANGE, HGETALL) one request
 * each; reads that a caller starts together (the candidate lists of a retrieval, a page of
 * records) go through here so they share one round trip. Not atomic: use it for reads, and for
 * scripts (each atomic on its own) whose order relative to the other commands does not matter.
 */
export class ReadBatcher {
  readonly #redis: RedisClient;
  #queue: QueuedRead[] = [];

  constructor(redis: RedisClient) {
    this.#redis = redis;
  }

  /** Queues one read (`add` puts its command on the pipeline); resolves to its raw reply. */
  read(add: (pipeline: RedisPipeline) => void, ready?: Promise<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ add, ready, resolve, reject });
      // Two microtasks: callers that start reads from inside `async` helpers still make it.
      if (this.#queue.length === 1) void Promise.resolve().then().then(() => this.#flush());
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#queue;
    this.#queue = [];
    try {
      await Promise.all(batch.map((item) => item.ready));
      const pipeline = this.#redis.pipeline();
      for (const item of batch) item.add(pipeline);
      const results = await pipeline.exec({ keepErrors: true });
      batch.forEach((item, i) => {
        const entry = results[i] as { result?: unknown; error?: string } | undefined;
        if (entry === undefined || entry.error) item.reject(new Error(entry?.error ?? "no reply"));
        else item.resolve(entry.result);
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  }

  /**
   * Queues a script's EVALSHA like a read, so it shares the request; when Redis does not have the
   * script cached, runs it again by its source (EVAL, one more request, once per server).
   */
  async script(script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    let sha = "";
    const ready = script.sha1().then((hash) => sha = hash);
    try {
      return await this.read((p) => p.evalsha(sha, keys, args), ready);
    } catch (error) {
      if (!String(error).toLowerCase().includes("noscript")) throw error;
      return await script.eval(keys, args);
    }
  }
}

/** A Lua script run with EVALSHA, falling back to EVAL when Redis does not have it cached. */
export interface LuaScript {
  /** Runs the script; the reply is raw (see {@linkcode RedisClient}). */
  exec(keys: string[], args: string[]): Promise<unknown>;
  /** Runs the script by its source (EVAL). */
  eval(keys: string[], args: string[]): Promise<unknown>;
  /** The script's SHA-1 in hex, for EVALSHA. */
  sha1(): Promise<string>;
}

/**
 * Wraps `redis.createScript()`, created on first use: the client starts hashing the script as
 * soon as it is created, and a script created but never run would leave that work pending.
 */
export function luaScript(redis: RedisClient, source: string): LuaScript {
  let script: ReturnType<RedisClient["createScript"]> | undefined;
  let sha1: Promise<string> | undefined;
  return {
    exec(keys, args) {
      script ??= redis.createScript(source);
      return script.exec(keys, args);
    },
    eval: (keys, args) => redis.eval(source, keys, args),
    sha1() {
      sha1 ??= crypto.subtle.digest("SHA-1", new TextEncoder().encode(source)).then((hash) =>
        [...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, "0")).join("")
      );
      return sha1;
    },
  };
}

/** The part of the vector client the stores use. */
export type VectorClient = Pick<Index, "namespace" | "queryMany" | "info" | "deleteNamespace">;

/**
 * Every key matching a glob `pattern`, by SCAN (never KEYS, which blocks the server). For
 * deletions of a whole scope, which are rare: it walks the keyspace.
 */
export async function scanKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const reply: unknown = await redis.scan(cursor, { match: pattern, count: 1000 });
    if (!Array.isArray(reply) || reply.length !== 2 || !Array.isArray(reply[1])) {
      unexpectedReply("list keys");
    }
    cursor = String(reply[0]);
    for (const key of reply[1]) keys.push(String(key));
  } while (cursor !== "0");
  return keys;
}

/** Deletes keys, 500 per DEL. */
export async function deleteKeys(redis: RedisClient, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
}

/**
 * Runs one Upstash Redis call and turns any failure except our own errors into
 * `store_unavailable`. The message names the action, never the command (it can hold user text).
 */
export async function redisCall<T>(action: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SimulacraError) throw error;
    throw new StoreUnavailableError(`Cannot ${action}: the call to Upstash Redis failed`, {
      cause: error,
    });
  }
}

/** Like {@linkcode redisCall}, for Upstash Vector. */
export async function vectorCall<T>(action: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SimulacraError) throw error;
    throw new StoreUnavailableError(`Cannot ${action}: the call to Upstash Vector failed`, {
      cause: error,
    });
  }
}

/**
 * Joins key parts with ":" after percent-encoding each, so a ":" inside a part (a document id,
 * an idempotency key) can never make two different keys equal.
 */
export function redisKey(prefix: string, ...parts: readonly string[]): string {
  return [prefix, ...parts.map((p) => encodeURIComponent(p))].join(":");
}

/** Throws a `store_unavailable` error when a reply does not have the expected shape. */
export function unexpectedReply(action: string): never {
  throw new StoreUnavailableError(`Cannot ${action}: Upstash Redis sent an unexpected reply`);
}

/** A flat `[field, value, field, value, …]` reply as pairs (RESP2 map replies). */
export function pairs(reply: unknown, action: string): [string, string][] {
  if (reply === null) return [];
  if (!Array.isArray(reply) || reply.length % 2 !== 0) unexpectedReply(action);
  const out: [string, string][] = [];
  for (let i = 0; i < reply.length; i += 2) out.push([String(reply[i]), String(reply[i + 1])]);
  return out;
}
