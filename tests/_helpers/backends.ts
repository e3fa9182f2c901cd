/**
 * @module Both storage backends for HTTP-level tests: the embedded one (in-memory Deno KV) and
 * the hosted one (Upstash clients → local gateway → a real redis-server, plus the local vector
 * server). The hosted one is left out, with a message, only where redis-server is not installed.
 */
import { startRedisServer } from "../../dev/redis_server.ts";
import { startUpstashLocal, type UpstashLocal } from "../../dev/upstash_local.ts";
import { startUpstashRedisGateway } from "../../dev/upstash_redis_gateway.ts";
import { startUpstashVectorServer } from "../../dev/upstash_vector_server.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { openUpstashStorage } from "../../lib/upstash/upstash_storage.ts";
import type { Storage } from "../../src/ports/storage.ts";
import { Redis } from "@upstash/redis";
import { Index } from "@upstash/vector";

/** A backend tests can open fresh, isolated stores from. */
export interface Backend {
  name: "embedded" | "upstash";
  /**
   * Opens a fresh store. On the hosted backend, the same `keyPrefix` twice gives two clients
   * of one store (as two server instances would have).
   */
  open(options?: { keyPrefix?: string }): Promise<Storage>;
  /** A fresh store whose raw contents a test can list, bypassing the adapters. */
  openInspected(): Promise<InspectedStorage>;
}

/** A store and a raw listing of everything in it. */
export interface InspectedStorage extends AsyncDisposable {
  storage: Storage;
  /**
   * Every stored item, read straight from the backend: each KV entry; each Redis string, hash
   * field (key `key#field`) and sorted-set member; each vector (key `vectors:namespace#id`).
   */
  contents(): Promise<StoredItem[]>;
}

/** One raw item of a store, as text. */
export interface StoredItem {
  key: string;
  value: string;
}

function text(value: unknown): string {
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  return JSON.stringify(value, (_, v) => (typeof v === "bigint" ? String(v) : v)) ?? "";
}

async function openInspectedKv(dimensions: number): Promise<InspectedStorage> {
  const dir = await Deno.makeTempDir({ prefix: "simulacra-inspect-" });
  const path = `${dir}/data.kv`;
  const storage = await openKvStorage({ path, dimensions });
  return {
    storage,
    async contents() {
      using kv = await Deno.openKv(path);
      const items: StoredItem[] = [];
      for await (const entry of kv.list({ prefix: [] })) {
        const value = entry.value instanceof Deno.KvU64 ? String(entry.value.value) : entry.value;
        items.push({ key: text(entry.key), value: text(value) });
      }
      return items;
    },
    async [Symbol.asyncDispose]() {
      await storage.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
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

/**
 * The REST gateway and the vector server (384-d) with one bearer `token`, over the Redis at
 * `redisUrl` or a redis-server started for them, as `deno task upstash:local` starts them.
 */
export function startLocalUpstash(token: string, redisUrl?: string): Promise<UpstashLocal> {
  return startUpstashLocal({ redisUrl, token, dimensions: 384, redisPort: 0, vectorPort: 0 });
}

let counter = 0;

/**
 * Starts the hosted backend's servers (once per test module, at top level) and returns both
 * backends. Vectors have `dimensions` (384 = the local embedder).
 */
export async function startBackends(
  dimensions = 384,
): Promise<{ backends: Backend[]; close(): Promise<void> }> {
  const embedded: Backend = {
    name: "embedded",
    open: () => openKvStorage({ dimensions }),
    openInspected: () => openInspectedKv(dimensions),
  };
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
  const openHosted = (keyPrefix: string) =>
    openUpstashStorage({
      redisUrl: gateway.url,
      redisToken: "test-redis-token",
      vectorUrl: vector.url,
      vectorToken: "test-vector-token",
      keyPrefix,
    });
  const newPrefix = () => `t${Date.now().toString(36)}${(counter++).toString(36)}`;
  const upstash: Backend = {
    name: "upstash",
    open: (options = {}) => openHosted(options.keyPrefix ?? newPrefix()),
    async openInspected() {
      const keyPrefix = newPrefix();
      const storage = await openHosted(keyPrefix);
      const redis = new Redis({
        url: gateway.url,
        token: "test-redis-token",
        automaticDeserialization: false,
        enableTelemetry: false,
      });
      const index = new Index({ url: vector.url, token: "test-vector-token" });
      return {
        storage,
        async contents() {
          const items: StoredItem[] = [];
          let cursor = "0";
          do {
            const [next, keys] = await redis.scan(cursor, { match: `${keyPrefix}:*`, count: 500 });
            cursor = String(next);
            for (const key of keys.map(String)) {
              const type = await redis.type(key);
              if (type === "hash") {
                const raw: unknown = await redis.hgetall(key);
                const flat = Array.isArray(raw) ? raw : Object.entries(raw ?? {}).flat();
                for (let i = 0; i < flat.length; i += 2) {
                  items.push({ key: `${key}#${flat[i]}`, value: String(flat[i + 1]) });
                }
              } else if (type === "zset") {
                for (const member of await redis.zrange(key, 0, -1)) {
                  items.push({ key, value: String(member) });
                }
              } else items.push({ key, value: text(await redis.get(key)) });
            }
          } while (cursor !== "0");
          for (const ns of await index.listNamespaces()) {
            if (!ns.startsWith(`${keyPrefix}:`)) continue;
            const range = await index.namespace(ns).range({ cursor: 0, limit: 1000 });
            for (const v of range.vectors) items.push({ key: `vectors:${ns}#${v.id}`, value: "" });
          }
          return items;
        },
        [Symbol.asyncDispose]: () => storage.close(),
      };
    },
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
