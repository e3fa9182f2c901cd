/**
 * @module Unit tests of retrieve(): weights and presets, kinds, k, the token budget, the access
 * update and NaN-free scores, on both ranking paths (the embedded backend's exhaustive scan, and
 * the candidate search the hosted backend uses, reached by hiding the scan).
 */
import assert from "node:assert/strict";
import { LocalEmbedder } from "../../../../lib/offline/local_embedder.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import { SimulacraError } from "../../../../src/domain/errors.ts";
import type { AgentId, AgentScope, MemoryId, WorldId } from "../../../../src/domain/ids.ts";
import type { MemoryKind, MemoryRecord } from "../../../../src/domain/memory/memory_record.ts";
import { estimateTokens, retrieve } from "../../../../src/app/memory/retrieval.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { coreWorld } from "../../../_helpers/core_world.ts";
import { storeEmbedded } from "../../../_helpers/stored_memories.ts";

const NOW = "2023-02-13T12:00:00";

interface Fixture {
  deps: Deps;
  worldId: WorldId;
  agentId: AgentId;
  scope: AgentScope;
}

/** A memory to store: what it says, and optionally its kind, importance and last access. */
interface Seed {
  id: string;
  text: string;
  kind?: MemoryKind;
  importance?: number;
  accessed?: string;
}

/**
 * Runs `fn` once per ranking path, on a world whose agent has the `memories` given besides the
 * seed memory of its description (tests that count leave kind "seed" out).
 */
function retrievalTest(
  name: string,
  memories: Seed[],
  fn: (f: Fixture) => Promise<void>,
  settings: Record<string, unknown> = {},
): void {
  for (const path of ["exhaustive scan", "candidate search"] as const) {
    Deno.test(`retrieve() ${name} [${path}]`, async () => {
      const embedder = new LocalEmbedder({ dimensions: 384 });
      await using base = await makeTestDeps({ embedder });
      const deps: Deps = path === "exhaustive scan" ? base : {
        ...base,
        // As the hosted backend ranks: from candidates.
        storage: { ...base.storage, memoryScan: { rank: (_s, _q, o) => o.fromCandidates() } },
      };
      const { id: worldId } = await coreWorld(deps, { name: "Town", settings });
      const { agent } = await createAgent(deps, worldId, {
        id: "klaus" as AgentId,
        name: "Klaus Mueller",
        description: "Klaus Mueller is a student",
      });
      const scope = { worldId, agentId: agent.id };
      const records: MemoryRecord[] = memories.map((m) => ({
        id: m.id as MemoryId,
        worldId,
        agentId: agent.id,
        kind: m.kind ?? "observation",
        description: m.text,
        createdAt: "2023-02-13T07:00:00",
        lastAccessedAt: m.accessed ?? "2023-02-13T07:00:00",
        importance: m.importance ?? 5,
        provenance: "witnessed",
      }));
      await storeEmbedded(deps, scope, records);
      await fn({ deps, worldId, agentId: agent.id, scope });
    });
  }
}

const NOT_SEEDS: MemoryKind[] = ["observation", "chat", "reflection"];
const idsOf = (out: { memories: { id: string }[] }) => out.memories.map((m) => m.id);

const TOWN: Seed[] = [
  { id: "piano", text: "Klaus practises the piano for the recital", importance: 2 },
  { id: "fire", text: "the kitchen of Hobbs Cafe is on fire", importance: 10 },
  { id: "recent", text: "Klaus drinks water", importance: 1, accessed: "2023-02-13T11:59:00" },
  { id: "thought", text: "Klaus thinks the recital matters to him", kind: "reflection" },
  { id: "chat", text: "Maria asked Klaus about the recital", kind: "chat" },
];

retrievalTest(
  "applies the weights: each component alone puts its own leader first",
  TOWN,
  async (f) => {
    const best = async (weights: { recency: number; importance: number; relevance: number }) =>
      idsOf(
        await retrieve(f.deps, { worldId: f.worldId, agentId: f.agentId }, {
          query: "piano practice for the recital",
          at: NOW,
          k: 1,
          kinds: ["observation"],
          weights,
        }),
      );
    // Recency first: each answer is marked accessed at NOW and would lead recency afterwards.
    assert.deepEqual(await best({ recency: 1, importance: 0, relevance: 0 }), ["recent"]);
    assert.deepEqual(await best({ recency: 0, importance: 1, relevance: 0 }), ["fire"]);
    assert.deepEqual(await best({ recency: 0, importance: 0, relevance: 1 }), ["piano"]);
  },
);

retrievalTest(
  "resolves the presets and the world's default, and scores Σ weight·component",
  TOWN,
  async (f) => {
    const ask = (weights?: "paper" | "reference") =>
      retrieve(f.deps, { worldId: f.worldId, agentId: f.agentId }, {
        query: "the recital",
        at: NOW,
        weights,
      });
    const paper = await ask("paper");
    assert.deepEqual(paper.weights, { recency: 1, importance: 1, relevance: 1 });
    const reference = await ask("reference");
    assert.deepEqual(reference.weights, { recency: 0.5, importance: 2, relevance: 3 });
    assert.deepEqual((await ask()).weights, reference.weights, "the world's setting by default");
    for (const m of reference.memories) {
      const { recency, importance, relevance } = m.components;
      assert.ok(Math.abs(m.score - (0.5 * recency + 2 * importance + 3 * relevance)) < 1e-9);
    }
  },
  { retrievalWeights: "reference" },
);

retrievalTest("keeps to the kinds asked for", TOWN, async (f) => {
  const ask = async (kinds: MemoryKind[]) =>
    idsOf(
      await retrieve(f.deps, { worldId: f.worldId, agentId: f.agentId }, {
        query: "recital",
        at: NOW,
        kinds,
      }),
    )
      .sort();
  assert.deepEqual(await ask(["reflection"]), ["thought"]);
  assert.deepEqual(await ask(["chat", "reflection"]), ["chat", "thought"]);
  assert.deepEqual(await ask(["plan"]), []);
  assert.equal((await ask(["observation", "chat", "reflection"])).length, 5);
});

retrievalTest("returns at most k, best first, and says how many it scored", TOWN, async (f) => {
  const ask = (k: number) =>
    retrieve(f.deps, { worldId: f.worldId, agentId: f.agentId }, {
      query: "recital",
      at: NOW,
      k,
      kinds: NOT_SEEDS,
    });
  const out = await ask(2);
  assert.equal(out.memories.length, 2);
  const all = await ask(10);
  assert.equal(all.memories.length, 5);
  assert.equal(all.candidates, 5);
  assert.deepEqual(idsOf(out), idsOf(all).slice(0, 2), "the top of the same ranking");
  for (let i = 1; i < all.memories.length; i++) {
    assert.ok(all.memories[i - 1].score >= all.memories[i].score);
  }
});

retrievalTest("stops before the token budget, keeping the best-first prefix", TOWN, async (f) => {
  const full = await retrieve(f.deps, { worldId: f.worldId, agentId: f.agentId }, {
    query: "recital",
    at: NOW,
  });
  const cost = full.memories.map((m) => estimateTokens(m.description));
  const budget = cost[0] + cost[1] + cost[2] - 1; // two fit, the third does not
  const out = await retrieve(f.deps, { worldId: f.worldId, agentId: f.agentId }, {
    query: "recital",
    at: NOW,
    tokenBudget: budget,
  });
  assert.deepEqual(idsOf(out), idsOf(full).slice(0, 2));
  const none = await retrieve(f.deps, { worldId: f.worldId, agentId: f.agentId }, {
    query: "recital",
    at: NOW,
    tokenBudget: cost[0] - 1,
  });
  assert.deepEqual(none.memories, [], "nothing when even the best does not fit");
});

retrievalTest("marks only what it returned as accessed at the question's time", TOWN, async (f) => {
  const at = "2023-02-13T15:30:00";
  const out = await retrieve(f.deps, { worldId: f.worldId, agentId: f.agentId }, {
    query: "recital",
    at,
    k: 2,
    kinds: NOT_SEEDS,
  });
  assert.ok(out.memories.every((m) => m.lastAccessedAt === at));
  const stored = await f.deps.storage.memories.getMany(
    f.scope,
    TOWN.map((m) => m.id as MemoryId),
  );
  const touched = stored.filter((m) => m!.lastAccessedAt === at).map((m) => m!.id).sort();
  assert.deepEqual(touched, idsOf(out).sort());
});

retrievalTest(
  "gives finite scores when every memory is alike (min–max of a constant is not 0/0)",
  [
    { id: "a", text: "Klaus reads a book" },
    { id: "b", text: "Klaus reads a book" },
  ],
  async (f) => {
    const out = await retrieve(f.deps, { worldId: f.worldId, agentId: f.agentId }, {
      query: "reads a book",
      at: NOW,
      kinds: ["observation"],
    });
    assert.equal(out.memories.length, 2);
    for (const m of out.memories) {
      assert.ok(Number.isFinite(m.score), `score ${m.score}`);
      for (const value of Object.values(m.components)) assert.ok(Number.isFinite(value));
    }
    assert.equal(out.memories[0].score, out.memories[1].score);
  },
);

retrievalTest("refuses an unknown agent and an empty query", TOWN, async (f) => {
  await assert.rejects(
    retrieve(f.deps, { worldId: f.worldId, agentId: "nobody" as AgentId }, { query: "recital" }),
    (e: unknown) => e instanceof SimulacraError && e.code === "agent_not_found",
  );
  await assert.rejects(
    retrieve(f.deps, { worldId: f.worldId, agentId: f.agentId }, { query: "   " }),
  );
});
