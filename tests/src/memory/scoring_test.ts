import assert from "node:assert/strict";
import type { MemoryRecord } from "../../../src/memory/memory.ts";
import {
  CONSTANT_COMPONENT,
  normalise,
  rankCandidates,
  resolveWeights,
  WEIGHT_PRESETS,
} from "../../../src/memory/scoring.ts";

function memory(id: string, lastAccessedAt: string, importance: number): MemoryRecord {
  return {
    id,
    worldId: "w",
    agentId: "a",
    kind: "observation",
    description: `memory ${id}`,
    createdAt: lastAccessedAt,
    lastAccessedAt,
    importance,
    provenance: "witnessed",
  } as MemoryRecord;
}

const at = "2023-02-14T12:00:00";
const paper = resolveWeights("paper");

Deno.test("normalise() maps to [0, 1] by min and max", () => {
  assert.deepEqual([...normalise(new Float64Array([2, 4, 6]))], [0, 0.5, 1]);
});

Deno.test("normalise() gives a constant series the constant value, never NaN", () => {
  for (const series of [[3, 3, 3], [7], [0, 0]]) {
    const out = [...normalise(new Float64Array(series))];
    assert.ok(out.every((v) => v === CONSTANT_COMPONENT), `${series} → ${out}`);
  }
  assert.deepEqual([...normalise(new Float64Array([]))], []);
});

Deno.test("rankCandidates() computes recency as decay^(game hours since last access)", () => {
  const ms = [memory("a", "2023-02-14T12:00:00", 5), memory("b", "2023-02-14T02:00:00", 5)];
  const ranked = rankCandidates(ms, [0.5, 0.5], { at, weights: paper, decay: 0.995 });
  const b = ranked.find((s) => s.memory.id === "b")!;
  assert.equal(b.raw.hoursSinceAccess, 10);
  assert.equal(
    ranked[0].memory.id,
    "a",
    "the more recently accessed memory wins at equal relevance",
  );
  assert.equal(ranked[0].components.recency, 1);
  assert.equal(b.components.recency, 0);
  assert.equal(b.components.importance, CONSTANT_COMPONENT);
});

Deno.test("rankCandidates() scores exactly Σ weight·component with min–max components", () => {
  const ms = [
    memory("old-important", "2023-02-13T12:00:00", 9),
    memory("new-mundane", "2023-02-14T11:00:00", 1),
    memory("mid", "2023-02-14T00:00:00", 4),
  ];
  const cosines = [0.1, 0.3, 0.9];
  for (
    const weights of [paper, resolveWeights("reference"), {
      recency: 0,
      importance: 0,
      relevance: 1,
    }]
  ) {
    const ranked = rankCandidates(ms, cosines, { at, weights, decay: 0.995 });
    for (const s of ranked) {
      const expected = weights.recency * s.components.recency +
        weights.importance * s.components.importance +
        weights.relevance * s.components.relevance;
      assert.equal(s.score, expected);
      for (const c of Object.values(s.components)) assert.ok(c >= 0 && c <= 1);
    }
    for (let i = 1; i < ranked.length; i++) assert.ok(ranked[i - 1].score >= ranked[i].score);
  }
  const byRelevance = rankCandidates(ms, cosines, {
    at,
    weights: { recency: 0, importance: 0, relevance: 1 },
  });
  assert.deepEqual(byRelevance.map((s) => s.memory.id), ["mid", "new-mundane", "old-important"]);
  const byImportance = rankCandidates(ms, cosines, {
    at,
    weights: { recency: 0, importance: 1, relevance: 0 },
  });
  assert.equal(byImportance[0].memory.id, "old-important");
  assert.equal(byImportance[0].components.importance, 1);
  const imp = byImportance.find((s) => s.memory.id === "mid")!.components.importance;
  assert.equal(imp, 3 / 8);
});

Deno.test("rankCandidates() is never NaN when every component is constant", () => {
  const ms = [memory("a", at, 5), memory("b", at, 5)];
  const ranked = rankCandidates(ms, [0.2, 0.2], { at, weights: paper });
  for (const s of ranked) {
    assert.equal(s.score, 3 * CONSTANT_COMPONENT);
    assert.ok(!Number.isNaN(s.score));
  }
  const one = rankCandidates([memory("x", at, 3)], [Number.NaN], { at, weights: paper });
  assert.equal(one[0].score, 3 * CONSTANT_COMPONENT);
});

Deno.test("rankCandidates() returns only the best `limit`, in the same order as a full sort", () => {
  const ms = Array.from(
    { length: 500 },
    (_, i) =>
      memory(
        `m${i}`,
        `2023-02-${String(1 + (i % 13)).padStart(2, "0")}T0${i % 10}:00:00`,
        1 + (i % 10),
      ),
  );
  const cosines = ms.map((_, i) => Math.sin(i));
  const all = rankCandidates(ms, cosines, { at, weights: paper });
  const top = rankCandidates(ms, cosines, { at, weights: paper, limit: 10 });
  assert.deepEqual(top.map((s) => s.memory.id), all.slice(0, 10).map((s) => s.memory.id));
});

Deno.test("rankCandidates() never gives negative hours for memories accessed after `at`", () => {
  const ranked = rankCandidates([memory("future", "2023-02-15T00:00:00", 5)], [0], {
    at,
    weights: paper,
  });
  assert.equal(ranked[0].raw.hoursSinceAccess, 0);
});

Deno.test("WEIGHT_PRESETS match the paper and the reference code", () => {
  assert.deepEqual(WEIGHT_PRESETS.paper, { recency: 1, importance: 1, relevance: 1 });
  assert.deepEqual(WEIGHT_PRESETS.reference, { recency: 0.5, importance: 2, relevance: 3 });
});
