import assert from "node:assert/strict";
import {
  archivePicks,
  archiveTarget,
  retentionOf,
} from "../../../../src/domain/memory/archiving.ts";
import type { MemoryRecord } from "../../../../src/domain/memory/memory_record.ts";
import { AgentId, MemoryId, WorldId } from "../../../../src/domain/ids.ts";
import { addMinutes, type GameTime } from "../../../../src/domain/time/game_time.ts";

const T0 = "2023-02-13T07:00:00" as GameTime;
const NOW = addMinutes(T0, 7 * 24 * 60);

function memory(id: string, overrides: Partial<MemoryRecord> = {}): MemoryRecord {
  return {
    id: MemoryId.parse(id),
    worldId: WorldId.parse("w"),
    agentId: AgentId.parse("a"),
    kind: "observation",
    description: id,
    createdAt: T0,
    lastAccessedAt: T0,
    importance: 3,
    provenance: "witnessed",
    ...overrides,
  };
}

const options = { at: NOW, decay: 0.995 };

Deno.test("retentionOf() ranks what retrieval is likelier to pick again higher", () => {
  const base = retentionOf(memory("plain"), options);
  const day = addMinutes(T0, 6 * 24 * 60);
  assert.ok(retentionOf(memory("important", { importance: 8 }), options) > base);
  assert.ok(retentionOf(memory("recent", { createdAt: day, lastAccessedAt: day }), options) > base);
  assert.ok(
    retentionOf(memory("recalled", { lastAccessedAt: addMinutes(T0, 60) }), options) > base,
  );
  assert.ok(retentionOf(memory("merged", { count: 14 }), options) > base);
  assert.ok(retentionOf(memory("insight", { kind: "reflection" }), options) > base);
  assert.ok(retentionOf(memory("old", { supersededBy: MemoryId.parse("new") }), options) < base);
  assert.equal(retentionOf(memory("who", { kind: "seed", importance: 1 }), options), Infinity);
});

Deno.test("archivePicks() archives the least retained down to keep, never a seed", () => {
  const live = [
    memory("seed-1", { kind: "seed", importance: 1 }),
    memory("seed-2", { kind: "seed", importance: 1 }),
    memory("idle", { importance: 1 }),
    memory("superseded", { importance: 9, supersededBy: MemoryId.parse("news") }),
    memory("news", { importance: 9 }),
    memory("chat", { kind: "chat", importance: 4 }),
    memory("older-idle", {
      importance: 1,
      createdAt: addMinutes(T0, -10),
      lastAccessedAt: addMinutes(T0, -10),
    }),
  ];
  assert.deepEqual(archivePicks(live, { ...options, keep: 7 }), []);
  assert.deepEqual(archivePicks(live, { ...options, keep: 4 }), [
    "superseded",
    "older-idle",
    "idle",
  ]);
  // Seeds stay even when they alone exceed what is kept.
  assert.deepEqual(archivePicks(live, { ...options, keep: 1 }).sort(), [
    "chat",
    "idle",
    "news",
    "older-idle",
    "superseded",
  ]);
});

Deno.test("archiveTarget() keeps a tenth below the budget", () => {
  assert.equal(archiveTarget(500), 450);
  assert.equal(archiveTarget(10), 9);
  assert.equal(archiveTarget(15), 13);
});
