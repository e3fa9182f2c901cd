/**
 * @module Benchmarks the embedded vector index (exact cosine scan) and embedded appends.
 *
 * Run with `deno bench -A tests/bench/kv_vector_index_bench.ts`. Setup fills one agent with
 * 10,000 and another with 100,000 random dense 384-dimension vectors (like OpenAI embeddings),
 * a third with 100,000 sparse ones (40 non-zeros, like the local embedder's; queried with 12),
 * and loads them (first query), so the query benches measure the scan alone. Goal: ≤ 20 ms per
 * query at 100k.
 */
import { KvMemoryStore } from "../../lib/kv/kv_memory_store.ts";
import { KvVectorIndex } from "../../lib/kv/kv_vector_index.ts";
import { AgentId, type AgentScope, MemoryId, WorldId } from "../../src/domain/ids.ts";
import type { MemoryRecord } from "../../src/domain/memory/memory_record.ts";
import type { VectorEntry } from "../../src/ports/vector_index.ts";
import type { GameTime } from "../../src/domain/time/game_time.ts";

const DIMENSIONS = 384;

let seed = 12345;
function random(): number {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
}

function randomVector(): Float32Array {
  return Float32Array.from({ length: DIMENSIONS }, random);
}

/** A vector with `nonZeros` random dimensions set, as feature hashing makes. */
function sparseVector(nonZeros: number): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  for (let k = 0; k < nonZeros; k++) v[Math.floor((random() + 0.5) * DIMENSIONS)] = random() || 1;
  return v;
}

function scope(agent: string): AgentScope {
  return { worldId: WorldId.parse("bench"), agentId: AgentId.parse(agent) };
}

async function fill(
  index: KvVectorIndex,
  where: AgentScope,
  count: number,
  vector = randomVector,
): Promise<void> {
  for (let start = 0; start < count; start += 5000) {
    const entries: VectorEntry[] = [];
    for (let i = start; i < Math.min(count, start + 5000); i++) {
      entries.push({ id: MemoryId.parse(`m${i}`), vector: vector() });
    }
    await index.upsert(where, entries);
  }
  await index.query(where, randomVector(), 1); // loads the agent into its slab
}

const kv = await Deno.openKv(":memory:");
globalThis.addEventListener("unload", () => kv.close());
const index = new KvVectorIndex({ kv, dimensions: DIMENSIONS });
const small = scope("agent-10k");
const large = scope("agent-100k");
await fill(index, small, 10_000);
await fill(index, large, 100_000);
const sparse = scope("agent-100k-sparse");
await fill(index, sparse, 100_000, () => sparseVector(40));
const queries = Array.from({ length: 16 }, randomVector);
const sparseQueries = Array.from({ length: 16 }, () => sparseVector(12));
let q = 0;

Deno.bench({
  name: "KvVectorIndex.query() top 10 of 10,000 vectors (384 dims)",
  group: "query",
  async fn() {
    await index.query(small, queries[q++ % queries.length], 10);
  },
});

Deno.bench({
  name: "KvVectorIndex.query() top 10 of 100,000 vectors (384 dims)",
  group: "query",
  baseline: true,
  async fn() {
    await index.query(large, queries[q++ % queries.length], 10);
  },
});

Deno.bench({
  name: "KvVectorIndex.query() top 200 of 100,000 vectors (384 dims)",
  group: "query",
  async fn() {
    await index.query(large, queries[q++ % queries.length], 200);
  },
});

Deno.bench({
  name: "KvVectorIndex.similarities() of 100,000 vectors (384 dims)",
  group: "query",
  async fn() {
    await index.similarities(large, queries[q++ % queries.length]);
  },
});

Deno.bench({
  name: "KvVectorIndex.query() top 10 of 100,000 sparse vectors (12 of 384 dims in the query)",
  group: "query",
  async fn() {
    await index.query(sparse, sparseQueries[q++ % sparseQueries.length], 10);
  },
});

Deno.bench({
  name: "KvVectorIndex.similarities() of 100,000 sparse vectors (12 of 384 dims in the query)",
  group: "query",
  async fn() {
    await index.similarities(sparse, sparseQueries[q++ % sparseQueries.length]);
  },
});

let next = 100_000;
Deno.bench({
  name: "KvVectorIndex.upsert() of 1 new vector into the loaded 100k agent",
  group: "append",
  async fn() {
    await index.upsert(large, [{ id: MemoryId.parse(`m${next++}`), vector: randomVector() }]);
  },
});

Deno.bench({
  name: "KvVectorIndex.upsert() of 100 new vectors into the loaded 100k agent",
  group: "append",
  async fn() {
    const entries = Array.from({ length: 100 }, () => ({
      id: MemoryId.parse(`m${next++}`),
      vector: randomVector(),
    }));
    await index.upsert(large, entries);
  },
});

const memories = new KvMemoryStore({ kv });
let agent = 0;
Deno.bench({
  name: "KvMemoryStore.append() of 500 memories of 2,000 characters (fresh agent)",
  group: "append",
  n: 30,
  warmup: 3,
  async fn(b) {
    const where = scope(`writer-${agent++}`);
    const batch: MemoryRecord[] = Array.from({ length: 500 }, (_, i) => ({
      id: MemoryId.parse(`m${i}`),
      ...where,
      kind: "observation",
      description: `${i} `.padEnd(2000, "lorem ipsum "),
      createdAt: "2023-02-13T07:00:00" as GameTime,
      lastAccessedAt: "2023-02-13T07:00:00" as GameTime,
      importance: 3,
      provenance: "witnessed",
    }));
    b.start();
    await memories.append(where, batch);
    b.end();
  },
});
