// deno-lint-ignore-file no-console -- a bench script that prints its results
/**
 * @module Resident memory of the embedded store with 200,000 memories across many agents (issue
 * 15): writes them to a KV file, reopens it, then touches every agent once (a retrieval scan,
 * which loads its memories and vectors), printing RSS as it goes. With the cache budget the RSS
 * levels off; set `SIMULACRA_CACHE_MB` to try another budget.
 *
 * Run with `deno run -A --lock=deno.dev.lock --v8-flags=--expose-gc tests/bench/embedded_cache_rss.ts [agents=100] [perAgent=2000]`.
 */
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import type { AgentId, AgentScope, MemoryId, WorldId } from "../../src/domain/ids.ts";
import type { MemoryRecord } from "../../src/domain/memory/memory_record.ts";
import { rankMemories } from "../../src/app/memory/retrieval.ts";
import { resolveWeights } from "../../src/domain/world/retrieval_weights.ts";
import { addMinutes, type GameTime } from "../../src/domain/time/game_time.ts";

const agents = Number(Deno.args[0] ?? 100);
const perAgent = Number(Deno.args[1] ?? 2_000);
const cacheMb = Number(Deno.env.get("SIMULACRA_CACHE_MB") ?? 256);
const T0 = "2023-02-13T07:00:00" as GameTime;
const embedder = new LocalEmbedder({ dimensions: 384 });
const words = ["election", "party", "rent", "cat", "jazz", "exam", "stove", "garden", "library"];
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const rss = () => {
  // Let V8 drop what eviction released before reading RSS (run with --v8-flags=--expose-gc).
  (globalThis as { gc?: () => void }).gc?.();
  return Deno.memoryUsage().rss;
};

const dir = await Deno.makeTempDir();
const path = `${dir}/rss.kv`;
const scopes: AgentScope[] = Array.from({ length: agents }, (_, i) => ({
  worldId: "rss" as WorldId,
  agentId: `agent${i}` as AgentId,
}));
try {
  {
    const writer = await openKvStorage({ path, dimensions: 384, cacheBytes: 16 * 1024 * 1024 });
    for (const scope of scopes) {
      for (let from = 0; from < perAgent; from += 500) {
        const records: MemoryRecord[] = [];
        for (let n = from; n < Math.min(perAgent, from + 500); n++) {
          records.push({
            id: `m${n}` as MemoryId,
            worldId: scope.worldId,
            agentId: scope.agentId,
            kind: "observation",
            description: `${scope.agentId} saw someone talk about the ${words[n % 9]} and the ${
              words[(n * 5) % 9]
            } near the cafe (${n})`,
            createdAt: addMinutes(T0, n),
            lastAccessedAt: addMinutes(T0, n),
            importance: 1 + (n % 9),
            provenance: "witnessed",
          });
        }
        const { vectors } = await embedder.embed(records.map((r) => r.description), {
          operation: "bench",
        });
        await writer.vectors.upsert(
          scope,
          records.map((r, i) => ({ id: r.id, vector: vectors[i] })),
        );
        await writer.memories.append(scope, records);
      }
    }
    await writer.close();
  }
  const storage = await openKvStorage({
    path,
    dimensions: 384,
    cacheBytes: cacheMb * 1024 * 1024,
  });
  const start = rss();
  console.log(
    `${agents} agents × ${perAgent} memories = ${
      agents * perAgent
    }; budget ${cacheMb} MB; RSS after open ${mb(start)}`,
  );
  const query = embedder.vector("the election at the cafe");
  const options = {
    at: addMinutes(T0, perAgent),
    weights: resolveWeights("paper"),
    decay: 0.995,
    k: 10,
  };
  let peak = start;
  for (const [i, scope] of scopes.entries()) {
    await rankMemories({ storage, embedder }, scope, { query: query, ...options });
    const now = rss();
    peak = Math.max(peak, now);
    if ((i + 1) % Math.max(1, Math.floor(agents / 10)) === 0) {
      console.log(
        `  ${i + 1} agents touched: RSS ${mb(now)}, cache ${
          mb(storage.cache.bytes)
        } in ${storage.cache.items} items`,
      );
    }
  }
  console.log(`peak RSS ${mb(peak)}; final ${mb(rss())}`);
  await storage.close();
} finally {
  await Deno.remove(dir, { recursive: true });
}
