/**
 * @module Both storage backends for HTTP-level tests: the embedded one (in-memory Deno KV) and
 * the hosted one (Upstash clients → local gateway → a real redis-server, plus the local vector
 * server). The hosted one is left out, with a message, only where redis-server is not installed.
 */
import { startRedisServer } from "../../dev/redis_server.ts";
import { startUpstashRedisGateway } from "../../dev/upstash_redis_gateway.ts";
import { startUpstashVectorServer } from "../../dev/upstash_vector_server.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { openUpstashStorage } from "../../lib/upstash/upstash_storage.ts";
import type { Storage } from "../../src/ports/storage.ts";

/** A backend tests can open fresh, isolated stores from. */
export interface Backend {
  name: "embedded" | "upstash";
  /**
   * Opens a fresh store. On the hosted backend, the same `keyPrefix` twice gives two clients
   * of one store (as two server instances would have).
   */
  open(options?: { keyPrefix?: string }): Promise<Storage>;
}

/** Whether redis-server is on PATH. */
export async function hasRedisServer(): Promise<boolean> {
  try {
    const out = await new Deno.Command("redis-server", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    })
      .output();
    return out.success;
  } catch {
    return false;
  }
}

let counter = 0;

/**
 * Starts the hosted backend's servers (once per test module, at top level) and returns both
 * backends. Vectors have `dimensions` (384 = the local embedder).
 */
export async function startBackends(
  dimensions = 384,
): Promise<{ backends: Backend[]; close(): Promise<void> }> {
  const embedded: Backend = { name: "embedded", open: () => openKvStorage({ dimensions }) };
  if (!(await hasRedisServer())) {
    // deno-lint-ignore no-console
    console.warn(
      "redis-server is not installed: skipping the hosted (Upstash) backend here; `apt-get install redis-server` runs it",
    );
    return { backends: [embedded], close: async () => {} };
  }
  const redis = await startRedisServer();
  const gateway = await startUpstashRedisGateway({
    redisUrl: redis.url,
    token: "test-redis-token",
  });
  const vector = await startUpstashVectorServer({ token: "test-vector-token", dimensions });
  const upstash: Backend = {
    name: "upstash",
    open: (options = {}) =>
      openUpstashStorage({
        redisUrl: gateway.url,
        redisToken: "test-redis-token",
        vectorUrl: vector.url,
        vectorToken: "test-vector-token",
        keyPrefix: options.keyPrefix ?? `t${Date.now().toString(36)}${(counter++).toString(36)}`,
      }),
  };
  return {
    backends: [embedded, upstash],
    async close() {
      await gateway.close();
      await vector.close();
      await redis.close();
    },
  };
}
