/**
 * @module The narrow client types the hosted stores use, the translation of client failures into
 * `store_unavailable`, and reply shapes. Keys are built in `layout.ts`.
 */
import type { Redis } from "@upstash/redis";
import type { Index } from "@upstash/vector";
import { SimulacraError, StoreUnavailableError } from "../../src/domain/mod.ts";

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
export function redisCall<T>(action: string, call: () => Promise<T>): Promise<T> {
  return upstashCall("Redis", action, call);
}

/** Like {@linkcode redisCall}, for Upstash Vector. */
export function vectorCall<T>(action: string, call: () => Promise<T>): Promise<T> {
  return upstashCall("Vector", action, call);
}

async function upstashCall<T>(
  service: "Redis" | "Vector",
  action: string,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SimulacraError) throw error;
    throw new StoreUnavailableError(`Cannot ${action}: the call to Upstash ${service} failed`, {
      cause: error,
    });
  }
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
