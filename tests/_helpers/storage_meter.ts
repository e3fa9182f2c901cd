/**
 * @module The hosted backend with meters: Upstash clients → the dev gateway → a redis-server of
 * this test's own, plus the dev vector server, counting what a piece of work costs in storage:
 * Redis HTTP requests, commands Redis ran (from `INFO commandstats`, so commands inside Lua
 * scripts count), and Upstash Vector requests.
 */
import { encodeArgs, RespConnection } from "../../dev/_resp_connection.ts";
import { startRedisServer } from "../../dev/redis_server.ts";
import { startUpstashRedisGateway } from "../../dev/upstash_redis_gateway.ts";
import { startUpstashVectorServer } from "../../dev/upstash_vector_server.ts";
import { openUpstashStorage } from "../../lib/upstash/upstash_storage.ts";
import type { Storage } from "../../src/ports/storage.ts";

/** What some work cost in storage. */
export interface StorageCost {
  /** HTTP requests to the Redis REST endpoint (a pipeline is one). */
  redisRequests: number;
  /** Commands Redis ran, including those run by scripts (EVALSHA counts itself too). */
  redisCommands: number;
  /** Redis commands by name, e.g. `{ zmscore: 2, evalsha: 1 }`. */
  byCommand: Record<string, number>;
  /** HTTP requests to Upstash Vector. */
  vectorRequests: number;
  /** Vector requests by endpoint (`query`, `fetch`, `upsert`, …). */
  byVectorEndpoint: Record<string, number>;
}

/** A metered hosted backend. */
export interface MeteredUpstash {
  /** Opens a fresh hosted storage (its own key prefix) on the metered servers. */
  open(): Promise<Storage>;
  /** What `work` cost (nothing else may use the servers meanwhile). */
  measure<T>(work: () => Promise<T>): Promise<{ result: T; cost: StorageCost }>;
  close(): Promise<void>;
}

let counter = 0;

/** Starts the servers; throws when redis-server is missing (callers check `hasRedisServer`). */
export async function startMeteredUpstash(dimensions = 384): Promise<MeteredUpstash> {
  const redis = await startRedisServer();
  const gateway = await startUpstashRedisGateway({ redisUrl: redis.url, token: "meter-token" });
  const vector = await startUpstashVectorServer({ token: "meter-token", dimensions });
  const admin = await RespConnection.connect(redis.url);
  const commandStats = async (): Promise<Record<string, number>> => {
    const [reply] = await admin.send([encodeArgs(["INFO", "commandstats"])]);
    const text = reply instanceof Uint8Array ? new TextDecoder().decode(reply) : String(reply);
    const out: Record<string, number> = {};
    for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (match[1] !== "info") out[match[1]] = Number(match[2]);
    }
    return out;
  };
  return {
    open: () =>
      openUpstashStorage({
        redisUrl: gateway.url,
        redisToken: "meter-token",
        vectorUrl: vector.url,
        vectorToken: "meter-token",
        keyPrefix: `m${Date.now().toString(36)}${(counter++).toString(36)}`,
      }),
    async measure(work) {
      const commandsBefore = await commandStats();
      const httpBefore = gateway.stats();
      const vectorBefore = vector.stats().requests;
      const result = await work();
      const commandsAfter = await commandStats();
      const httpAfter = gateway.stats();
      const vectorAfter = vector.stats().requests;
      const byCommand = difference(commandsAfter, commandsBefore);
      const byVectorEndpoint = difference(vectorAfter, vectorBefore);
      return {
        result,
        cost: {
          redisRequests: httpAfter.requests - httpBefore.requests,
          redisCommands: sum(byCommand),
          byCommand,
          vectorRequests: sum(byVectorEndpoint),
          byVectorEndpoint,
        },
      };
    },
    async close() {
      admin.close();
      await gateway.close();
      await vector.close();
      await redis.close();
    },
  };
}

function difference(
  after: Record<string, number>,
  before: Record<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, n] of Object.entries(after)) {
    const d = n - (before[name] ?? 0);
    if (d > 0) out[name] = d;
  }
  return out;
}

function sum(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}
