/**
 * @module Measures the bytes stored per memory on both backends, for BENCHMARKS.md:
 * `deno run -A tests/bench/bytes_per_memory.ts`. Stores 10,000 typical observations (~60
 * characters, 384-dimension vectors) in one agent and reports the growth of the Deno KV file
 * and of redis-server's `used_memory` (the vectors on the hosted backend live in Upstash Vector:
 * 384 × 4 bytes each plus metadata, not counted there).
 */
import { startRedisServer } from "../../dev/redis_server.ts";
import { startUpstashRedisGateway } from "../../dev/upstash_redis_gateway.ts";
import { startUpstashVectorServer } from "../../dev/upstash_vector_server.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { openUpstashStorage } from "../../lib/upstash/upstash_storage.ts";
import { AgentId, MemoryId, WorldId } from "../../src/domain/ids.ts";
import type { MemoryRecord } from "../../src/domain/memory/memory_record.ts";
import type { Storage } from "../../src/ports/storage.ts";
import { fromGameMinutes, gameMinutes } from "../../src/domain/time/game_time.ts";
import { storeEmbedded } from "../_helpers/stored_memories.ts";

const N = 10_000;
const scope = { worldId: WorldId.parse("bytes"), agentId: AgentId.parse("agent") };
const embedder = new LocalEmbedder({ dimensions: 384 });

async function fill(storage: Storage): Promise<void> {
  const start = gameMinutes("2023-02-13T07:00:00");
  for (let b = 0; b < N; b += 500) {
    const records: MemoryRecord[] = [];
    for (let i = b; i < b + 500; i++) {
      const at = fromGameMinutes(start + i);
      records.push({
        id: MemoryId.parse(`m_${String(i).padStart(6, "0")}abcdefghij`),
        worldId: scope.worldId,
        agentId: scope.agentId,
        kind: "observation",
        description: `Isabella Rodriguez is arranging flowers on table ${i} at Hobbs Cafe`,
        createdAt: at,
        lastAccessedAt: at,
        importance: 1 + (i % 10),
        provenance: "witnessed",
        location: "Hobbs Cafe:cafe:table",
      });
    }
    await storeEmbedded({ storage, embedder }, scope, records);
  }
}

const dir = await Deno.makeTempDir();
const path = `${dir}/bytes.kv`;
const kv = await openKvStorage({ path, dimensions: 384 });
await kv.documents.create({ collection: "x", scope: "", id: "x" }, {});
const before = (await Deno.stat(path)).size;
await fill(kv);
await kv.close();
const after = (await Deno.stat(path)).size;
// deno-lint-ignore no-console
console.log(
  `embedded (Deno KV file, record + float32 vector + indexes): ${
    Math.round((after - before) / N)
  } bytes per memory`,
);
await Deno.remove(dir, { recursive: true });

const redis = await startRedisServer();
const gateway = await startUpstashRedisGateway({ redisUrl: redis.url, token: "t" });
const vector = await startUpstashVectorServer({ token: "v", dimensions: 384 });
const usedMemory = async () => {
  const res = await fetch(gateway.url, {
    method: "POST",
    headers: { authorization: "Bearer t" },
    body: JSON.stringify(["INFO", "memory"]),
  });
  const info = (await res.json()).result as string;
  return Number(/used_memory:(\d+)/.exec(info)![1]);
};
const up = await openUpstashStorage({
  redisUrl: gateway.url,
  redisToken: "t",
  vectorUrl: vector.url,
  vectorToken: "v",
});
const r0 = await usedMemory();
await fill(up);
const r1 = await usedMemory();
// deno-lint-ignore no-console
console.log(
  `hosted (Redis used_memory: record hash + sorted sets): ${
    Math.round((r1 - r0) / N)
  } bytes per memory`,
);
await up.close();
await gateway.close();
await vector.close();
await redis.close();
