/**
 * @module recall() from candidates reads every query's candidates in one read
 * (`SharedCandidates`), and ranks and marks exactly as ranking and marking each query in turn,
 * on the embedded store (its candidates read, the scan hidden) and the hosted one when
 * redis-server is here.
 */
import assert from "node:assert/strict";
import { LocalEmbedder } from "../../../../lib/offline/local_embedder.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { recall } from "../../../../src/app/memory/recall.ts";
import { rankMemories } from "../../../../src/app/memory/retrieval.ts";
import { getWorld } from "../../../../src/app/world/world_store.ts";
import type { AgentId, MemoryId } from "../../../../src/domain/ids.ts";
import type { MemoryRecord } from "../../../../src/domain/memory/memory_record.ts";
import type { Scored } from "../../../../src/domain/mod.ts";
import { fromGameMinutes, gameMinutes } from "../../../../src/domain/time/game_time.ts";
import { resolveWeights } from "../../../../src/domain/world/retrieval_weights.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { type Backend, startBackends } from "../../../_helpers/backends.ts";
import { coreWorld } from "../../../_helpers/core_world.ts";
import { storeEmbedded } from "../../../_helpers/stored_memories.ts";

const PLACES = ["the cafe", "the park", "the library", "the pharmacy", "the college", "the bar"];
const ACTS = ["talks about the election", "reads a novel", "plays the piano", "buys medicine"];
const QUERIES = [
  "Klaus Mueller's relationship with Maria Lopez",
  "the election at the cafe",
  "a piano recital in the park",
];
const START = gameMinutes("2023-02-13T07:00:00");

const { backends, close } = await startBackends();

/** A town whose agent has `n` memories (accessed one a minute, some twice); ranked as hosted. */
async function town(backend: Backend, n: number) {
  const base = await makeTestDeps({
    embedder: new LocalEmbedder({ dimensions: 384 }),
    storage: await backend.open(),
  });
  let reads = 0;
  const memories = base.storage.memories;
  const deps: Deps & AsyncDisposable = {
    ...base,
    storage: {
      ...base.storage,
      // As the hosted backend ranks: from candidates; each candidates read counted.
      memoryScan: { rank: (_s, _q, o) => o.fromCandidates() },
      memories: new Proxy(memories, {
        get(target, key) {
          if (key === "candidates") reads++;
          const value = Reflect.get(target, key);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
    },
    [Symbol.asyncDispose]: () => base[Symbol.asyncDispose](),
  };
  const { id: worldId } = await coreWorld(deps, { name: "Town" });
  const { agent } = await createAgent(deps, worldId, {
    id: "klaus" as AgentId,
    name: "Klaus Mueller",
    description: "Klaus Mueller is a student",
  });
  const scope = { worldId, agentId: agent.id };
  const records: MemoryRecord[] = Array.from({ length: n }, (_, i) => ({
    id: `m${String(i).padStart(5, "0")}` as MemoryId,
    worldId,
    agentId: agent.id,
    kind: "observation",
    description: `Klaus ${ACTS[i % ACTS.length]} at ${PLACES[(i * 7) % PLACES.length]} (${i})`,
    createdAt: fromGameMinutes(START + i),
    lastAccessedAt: fromGameMinutes(START + i + (i % 3 === 0 ? n : 0)),
    importance: 1 + (i * 5) % 10,
    provenance: "witnessed",
  }));
  await storeEmbedded(deps, scope, records);
  return { deps, scope, agent, reads: () => reads };
}

for (
  const [backend, { n, atMinute, shared }] of backends.flatMap((b) =>
    [
      { n: 60, atMinute: 200, shared: true },
      // More memories than a recency head holds (1,000).
      { n: 1_200, atMinute: 2_500, shared: true },
      // Memories accessed after the recall's time: a mark can end below the head, so each later
      // query reads its own candidates, after the marks held.
      { n: 1_200, atMinute: 100, shared: false },
    ].map((c) => [b, c] as const)
  )
) {
  Deno.test({
    name:
      `recall() from candidates (${backend.name}) over ${n} memories (at +${atMinute} min) ranks and marks as each query in turn does, in ${
        shared ? "one candidates read" : "a read per query"
      }`,
    // The hosted store's clients keep sockets open between tests.
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const one = await town(backend, n);
      await using b = one.deps;
      const tx = await town(backend, n);
      await using c = tx.deps;
      const world = await getWorld(c, tx.scope.worldId);
      const at = fromGameMinutes(START + atMinute);
      const got = await recall(c, { world, agent: tx.agent, queries: QUERIES }, { at, k: 5 });
      assert.equal(tx.reads(), shared ? 1 : QUERIES.length);

      // The reference: each query ranked, then its memories marked, in turn.
      const { vectors } = await b.embedder.embed(QUERIES, { operation: "test" });
      const marked = new Set<MemoryId>();
      const want: Scored[][] = [];
      for (const query of vectors) {
        const ranking = await rankMemories(b, one.scope, {
          query,
          at,
          weights: resolveWeights(world.settings.retrievalWeights),
          decay: world.settings.recencyDecay,
          k: 5,
          markAccessed: true,
          marked,
        });
        for (const id of ranking.marked ?? []) marked.add(id);
        want.push(ranking.ranked);
      }
      // Ids of the agent's seed memory differ between the towns: compared by description.
      const ranked = (r: Scored[][]) => r.map((q) => q.map((s) => [s.memory.description, s.score]));
      assert.deepEqual(ranked(got.results), ranked(want));
      assert.ok(got.results.flat().length >= 10);
      // The records of the earlier queries are as read after their marks.
      for (const s of got.results.slice(0, -1).flat()) assert.equal(s.memory.lastAccessedAt, at);
      const accessed = async (deps: Deps, scope: typeof one.scope) =>
        (await deps.storage.memories.all(scope)).map((m) => [m.description, m.lastAccessedAt])
          .sort();
      assert.deepEqual(await accessed(c, tx.scope), await accessed(b, one.scope));
    },
  });
}

Deno.test({
  name: "recall shared: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
