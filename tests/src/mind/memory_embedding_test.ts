import assert from "node:assert/strict";
import { LocalEmbedder } from "../../../lib/offline/local_embedder.ts";
import { embedMemoriesAgain, embedNewMemories } from "../../../src/mind/memory_embedding.ts";
import { embedQueries } from "../../../src/mind/query_embedding.ts";
import type { Attribution } from "../../../src/domain/usage.ts";
import type { AgentId, AgentScope, MemoryId, WorldId } from "../../../src/domain/ids.ts";
import type { MemoryRecord } from "../../../src/domain/memory/memory_record.ts";
import type { Embedder } from "../../../src/ports/embedder.ts";

/** The local embedder, recording each call's texts and attribution. */
function recordingEmbedder(): { embedder: Embedder; calls: [string[], Attribution][] } {
  const local = new LocalEmbedder();
  const calls: [string[], Attribution][] = [];
  const embedder: Embedder = {
    info: local.info,
    embed: (texts, attribution) => {
      calls.push([[...texts], attribution]);
      // The local embedder is free; a priced one's usage is what the step hands back.
      return local.embed(texts, attribution).then((e) => ({
        ...e,
        usage: { ...e.usage, calls: 1 },
      }));
    },
  };
  return { embedder, calls };
}

const scope: AgentScope = { worldId: "w1" as WorldId, agentId: "a1" as AgentId };

function memory(id: string, description: string): MemoryRecord {
  return {
    id: id as MemoryId,
    worldId: scope.worldId,
    agentId: scope.agentId,
    kind: "observation",
    description,
    createdAt: "2023-02-13T08:00:00",
    lastAccessedAt: "2023-02-13T08:00:00",
    importance: 3,
    provenance: "witnessed",
  };
}

Deno.test("embedNewMemories() embeds each distinct text once, in one call labelled `embedding`", async () => {
  const { embedder, calls } = recordingEmbedder();
  const texts = ["Klaus is reading", "the cafe is open", "Klaus is reading"];
  const { vectorOf, usage } = await embedNewMemories(scope, texts, { embedder });
  assert.deepEqual(calls, [[["Klaus is reading", "the cafe is open"], {
    worldId: "w1",
    agentId: "a1",
    operation: "embedding",
  }]]);
  assert.equal(vectorOf.size, 2);
  const direct = await new LocalEmbedder().embed(["the cafe is open"], { operation: "x" });
  assert.deepEqual(vectorOf.get("the cafe is open"), direct.vectors[0]);
  assert.equal(usage.calls, 1);
});

Deno.test("embedNewMemories() and embedMemoriesAgain() make no call for nothing", async () => {
  const { embedder, calls } = recordingEmbedder();
  const fresh = await embedNewMemories(scope, [], { embedder });
  const again = await embedMemoriesAgain(scope, { memories: [], operation: "embedding.repair" }, {
    embedder,
  });
  assert.equal(calls.length, 0);
  assert.equal(fresh.vectorOf.size, 0);
  assert.deepEqual(again.entries, []);
  assert.equal(again.usage.calls, 0);
});

Deno.test("embedMemoriesAgain() gives each memory its vector, in order, under the reason's label", async () => {
  const { embedder, calls } = recordingEmbedder();
  const memories = [memory("m1", "Maria sings"), memory("m2", "Sam campaigns")];
  const { entries } = await embedMemoriesAgain(
    scope,
    { memories, operation: "embedding.import" },
    { embedder },
  );
  assert.deepEqual(entries.map((e) => e.id), ["m1", "m2"]);
  assert.equal(calls.length, 1);
  assert.equal(calls[0][1].operation, "embedding.import");
  const direct = await new LocalEmbedder().embed(["Sam campaigns"], { operation: "x" });
  assert.deepEqual(entries[1].vector, direct.vectors[0]);
});

Deno.test("embedQueries() embeds every query in one call under the caller's label", async () => {
  const { embedder, calls } = recordingEmbedder();
  const { vectors } = await embedQueries(
    scope,
    { queries: ["who runs for mayor?", "what is for lunch?"], operation: "recall.query" },
    { embedder },
  );
  assert.equal(vectors.length, 2);
  assert.deepEqual(calls.map(([texts, a]) => [texts.length, a.operation]), [[2, "recall.query"]]);
});
