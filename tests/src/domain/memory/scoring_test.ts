import assert from "node:assert/strict";
import type { MemoryRecord } from "../../../../src/domain/memory/memory_record.ts";
import {
  CONSTANT_COMPONENT,
  normalise,
  rankCandidates,
  rankColumns,
  type Scored,
} from "../../../../src/domain/memory/scoring.ts";
import {
  resolveWeights,
  WEIGHT_PRESETS,
  type Weights,
} from "../../../../src/domain/world/retrieval_weights.ts";
import { fromGameMinutes, gameMinutesFast } from "../../../../src/domain/time/game_time.ts";

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

/** A deterministic pseudo-random generator in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/**
 * What rankCandidates computed before the columnar core: every component of every candidate,
 * normalised with `normalise`, then a full sort. The reference for exactness.
 */
function referenceRank(
  memories: readonly MemoryRecord[],
  cosines: ArrayLike<number>,
  options: { at: string; weights: Weights; decay?: number; limit?: number },
): Scored[] {
  const n = memories.length;
  const atMin = gameMinutesFast(options.at);
  const logDecay = Math.log(options.decay ?? 0.995);
  const hours = new Float64Array(n);
  const rec = new Float64Array(n);
  const imp = new Float64Array(n);
  const cos = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    hours[i] = Math.max(0, (atMin - gameMinutesFast(memories[i].lastAccessedAt)) / 60);
    rec[i] = Math.exp(hours[i] * logDecay);
    imp[i] = memories[i].importance;
    cos[i] = Number.isFinite(cosines[i]) ? cosines[i] : 0;
  }
  const [nr, ni, nc] = [normalise(rec), normalise(imp), normalise(cos)];
  const { weights: w } = options;
  const score = Array.from(
    { length: n },
    (_, i) => w.recency * nr[i] + w.importance * ni[i] + w.relevance * nc[i],
  );
  const better = (i: number, j: number) => {
    if (score[i] !== score[j]) return score[i] > score[j];
    const [a, b] = [memories[i], memories[j]];
    if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt;
    return a.id < b.id;
  };
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (better(a, b) ? -1 : 1));
  return order.slice(0, Math.min(options.limit ?? n, n)).map((i) => ({
    memory: memories[i],
    score: score[i],
    components: { recency: nr[i], importance: ni[i], relevance: nc[i] },
    raw: { hoursSinceAccess: hours[i], importance: imp[i], cosine: cos[i] },
  }));
}

/** Random candidates; `shape` picks the hard cases (ties, constants, odd cosines, old times). */
function randomCandidates(
  random: () => number,
  n: number,
  shape: { spanHours: number; constantImportance?: boolean; constantCosine?: boolean },
): { memories: MemoryRecord[]; cosines: number[] } {
  const start = gameMinutesFast(at) - shape.spanHours * 60;
  const memories: MemoryRecord[] = [];
  const cosines: number[] = [];
  for (let i = 0; i < n; i++) {
    // A fifth repeat an earlier candidate's values, so scores tie and the tie rules decide.
    const twin = i > 0 && random() < 0.2 ? Math.floor(random() * i) : -1;
    const accessed = twin >= 0
      ? memories[twin].lastAccessedAt
      // Whole seconds, a few after `at` (their hours clamp to 0).
      : fromGameMinutes(Math.round((start + random() * (shape.spanHours + 2) * 60) * 60) / 60);
    const created = random() < 0.3 ? at : fromGameMinutes(gameMinutesFast(accessed) - 30);
    memories.push({
      ...memory(`m${String(i).padStart(6, "0")}`, accessed, 0),
      createdAt: created as MemoryRecord["createdAt"],
      importance: shape.constantImportance
        ? 4
        : twin >= 0
        ? memories[twin].importance
        : 1 + Math.floor(random() * 10),
    });
    const odd = random();
    cosines.push(
      shape.constantCosine
        ? 0.25
        : twin >= 0
        ? cosines[twin]
        : odd < 0.01
        ? Number.NaN
        : odd < 0.02
        ? Infinity
        : Math.fround(random() * 2 - 1),
    );
  }
  return { memories, cosines };
}

function columnsOf(memories: readonly MemoryRecord[], cosines: readonly number[]) {
  return {
    records: memories,
    cosines: Float32Array.from(cosines),
    accessedMinutes: Float64Array.from(memories, (m) => gameMinutesFast(m.lastAccessedAt)),
    importance: Float64Array.from(memories, (m) => m.importance),
  };
}

Deno.test("rankColumns() returns exactly what full scoring and a full sort return, on random data", async (t) => {
  const random = rng(20240213);
  const weightSets: Weights[] = [
    paper,
    resolveWeights("reference"),
    { recency: 0, importance: 0, relevance: 1 },
    { recency: 100, importance: 0, relevance: 0 },
    { recency: 0, importance: 0, relevance: 0 },
  ];
  const cases = [
    { n: 1, limit: 10, spanHours: 5, decay: 0.995 },
    { n: 7, limit: 3, spanHours: 2, decay: 0.995 },
    { n: 300, limit: 300, spanHours: 400, decay: 0.995 },
    { n: 2000, limit: 10, spanHours: 1700, decay: 0.995 },
    { n: 2000, limit: 25, spanHours: 24, decay: 0.999999 },
    { n: 2000, limit: 10, spanHours: 10_000, decay: 0.9 }, // recency underflows: no pruning
    { n: 3000, limit: 10, spanHours: 48, decay: 0.5, constantImportance: true },
    { n: 3000, limit: 100, spanHours: 900, decay: 0.995, constantCosine: true },
    { n: 20_000, limit: 10, spanHours: 1700, decay: 0.995 },
  ];
  for (const c of cases) {
    await t.step(`${c.n} candidates, limit ${c.limit}, decay ${c.decay}`, () => {
      const { memories, cosines } = randomCandidates(random, c.n, c);
      for (const weights of weightSets) {
        const options = { at, weights, decay: c.decay, limit: c.limit };
        const expected = referenceRank(memories, cosines, options);
        assert.deepEqual(rankColumns(columnsOf(memories, cosines), options), expected);
        assert.deepEqual(rankCandidates(memories, cosines, options), expected);
      }
    });
  }
});

Deno.test("rankColumns() gives every candidate CONSTANT_COMPONENT for a constant component", () => {
  const ms = [memory("a", at, 5), memory("b", at, 5), memory("c", at, 5)];
  const ranked = rankColumns(columnsOf(ms, [0.25, 0.75, 0.5]), { at, weights: paper, limit: 3 });
  assert.deepEqual(ranked.map((s) => s.memory.id), ["b", "c", "a"]);
  for (const s of ranked) {
    assert.equal(s.components.recency, CONSTANT_COMPONENT);
    assert.equal(s.components.importance, CONSTANT_COMPONENT);
    assert.equal(s.score, 2 * CONSTANT_COMPONENT + s.components.relevance);
  }
  assert.deepEqual(ranked.map((s) => s.components.relevance), [1, 0.5, 0]);
  const empty = rankColumns(columnsOf([], []), { at, weights: paper, limit: 10 });
  assert.deepEqual(empty, []);
});
