import assert from "node:assert/strict";
import {
  consolidationDue,
  consolidationPlan,
  memoryTextKey,
  strengthened,
} from "../../../../src/domain/memory/consolidation.ts";
import type { MemoryRecord } from "../../../../src/domain/memory/memory_record.ts";
import { revised } from "../../../../src/domain/memory/upkeep.ts";
import { AgentId, MemoryId, WorldId } from "../../../../src/domain/ids.ts";
import { addMinutes, type GameTime } from "../../../../src/domain/time/game_time.ts";

const T0 = "2023-02-13T08:00:00" as GameTime;

function memory(id: string, minutes: number, overrides: Partial<MemoryRecord> = {}): MemoryRecord {
  const at = addMinutes(T0, minutes);
  return {
    id: MemoryId.parse(id),
    worldId: WorldId.parse("w"),
    agentId: AgentId.parse("a"),
    kind: "observation",
    description: "Lucia Moretti is wiping the counter",
    createdAt: at,
    lastAccessedAt: at,
    importance: 2,
    provenance: "witnessed",
    ...overrides,
  };
}

Deno.test("memoryTextKey() ignores case, punctuation and spacing", () => {
  assert.equal(
    memoryTextKey("Camille Moreau is married to Victor Moreau."),
    memoryTextKey("camille moreau  is married to Victor Moreau"),
  );
  assert.notEqual(
    memoryTextKey("Sam works at the pharmacy"),
    memoryTextKey("Sam works at the library"),
  );
});

Deno.test("consolidationPlan() merges near-identical memories into the earliest, counting them", () => {
  const live = Array.from(
    { length: 14 },
    (_, i) =>
      memory(`m-${String(i).padStart(2, "0")}`, i * 17, {
        description: i % 2
          ? "Lucia Moretti is wiping the counter."
          : "lucia moretti is wiping the counter",
        importance: i === 5 ? 4 : 2,
      }),
  );
  const other = memory("other", 3, { description: "Lucia Moretti is making coffee" });
  const plan = consolidationPlan([...live.slice(7), other, ...live.slice(0, 7)]);
  assert.equal(plan.groups, 1);
  assert.deepEqual(plan.merged, live.slice(1).map((m) => m.id));
  const survivor = plan.revisions.find((r) => r.id === "m-00")!;
  assert.deepEqual(survivor, {
    id: "m-00",
    count: 14,
    firstAt: "2023-02-13T08:00:00",
    lastAt: "2023-02-13T11:41:00",
    evidence: live.slice(1).map((m) => m.id),
    importance: 4,
    lastAccessedAt: "2023-02-13T11:41:00",
  });
  for (const m of live.slice(1)) {
    assert.deepEqual(plan.revisions.find((r) => r.id === m.id), { id: m.id, mergedInto: "m-00" });
  }
});

Deno.test("consolidationPlan() keeps provenance apart, leaves superseded, seeds and plans alone, and adds to an earlier merge", () => {
  const told = (id: string, minutes: number, by: string) =>
    memory(id, minutes, {
      kind: "chat",
      description: "Sam told me that the well is dry",
      provenance: `told_by:${by}`,
    });
  const earlier = memory("a", 0, {
    count: 3,
    firstAt: addMinutes(T0, -600),
    lastAt: addMinutes(T0, -60),
    evidence: [MemoryId.parse("x"), MemoryId.parse("y")],
  });
  const plan = consolidationPlan([
    earlier,
    memory("b", 30, { evidence: [MemoryId.parse("z")] }),
    memory("c", 40, { supersededBy: MemoryId.parse("d") }),
    told("t1", 0, "Sam"),
    told("t2", 10, "Maria"),
    memory("s1", 0, { kind: "seed", provenance: "seed" }),
    memory("s2", 1, { kind: "seed", provenance: "seed" }),
  ]);
  assert.equal(plan.groups, 1);
  assert.deepEqual(plan.merged, ["b"]);
  const survivor = plan.revisions.find((r) => r.id === "a")!;
  assert.equal(survivor.count, 4);
  assert.equal(survivor.firstAt, addMinutes(T0, -600));
  assert.equal(survivor.lastAt, addMinutes(T0, 30));
  assert.deepEqual(survivor.evidence, ["x", "y", "z", "b"]);
});

Deno.test("strengthened() counts a repeat and moves its times", () => {
  const stored = memory("r", 0, { kind: "reflection", provenance: "self" });
  const once = strengthened(stored, addMinutes(T0, 90));
  assert.deepEqual(once, {
    id: "r",
    count: 2,
    firstAt: T0,
    lastAt: addMinutes(T0, 90),
    lastAccessedAt: addMinutes(T0, 90),
  });
  assert.equal(strengthened(revised(stored, once), addMinutes(T0, 30)).count, 3);
  assert.equal(strengthened(revised(stored, once), addMinutes(T0, 30)).lastAt, addMinutes(T0, 90));
});

Deno.test("consolidationDue() is true once per game night, after midnight", () => {
  const agent = { createdAt: "2023-02-13T07:00:00" as GameTime };
  assert.equal(consolidationDue(agent, "2023-02-13T23:50:00" as GameTime), false);
  assert.equal(consolidationDue(agent, "2023-02-14T00:00:00" as GameTime), true);
  const slept = { ...agent, consolidatedAt: "2023-02-14T00:00:00" as GameTime };
  assert.equal(consolidationDue(slept, "2023-02-14T00:10:00" as GameTime), false);
  assert.equal(consolidationDue(slept, "2023-02-14T23:59:00" as GameTime), false);
  assert.equal(consolidationDue(slept, "2023-02-15T00:10:00" as GameTime), true);
  // A tick of a whole day consolidates every day.
  assert.equal(consolidationDue(slept, "2023-02-15T00:00:00" as GameTime), true);
});
