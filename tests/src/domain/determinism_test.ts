/** @module A seeded town replays exactly: the same calls, events and memories at any concurrency. */
import assert from "node:assert/strict";
import { OfflineLanguageModel } from "../../../lib/offline/offline_language_model.ts";
import { simulateTown } from "../../../src/eval/simulate_town.ts";
import type { AgentId, WorldId } from "../../../src/domain/ids.ts";
import { tickWorld } from "../../../src/app/simulation/tick_world.ts";
import { countingModel, makeTestDeps } from "../../_helpers/test_deps.ts";
import { TOWNS } from "../../../towns/mod.ts";

/** Ids minted at run time (conversations); everything else must match. */
const MINTED = /\bc_[0-9a-z]+\b/g;

async function run(concurrency: number, seed: number) {
  const deps = await makeTestDeps();
  const { model, sent } = countingModel(
    new OfflineLanguageModel({ onUsage: (r) => deps.storage.usage.add(r) }),
  );
  deps.model = model;
  const { worldId, summary } = await simulateTown(deps, {
    template: "smallville",
    catalog: TOWNS,
    hours: 4,
    concurrency,
    seed,
    tick: (d, w, o) => tickWorld(d, w, o),
    wallClock: () => 0,
  });
  const events: string[] = [];
  for (let seq = 0;;) {
    const page = await deps.storage.events.read(worldId as WorldId, seq, 1000);
    if (page.length === 0) break;
    events.push(...page.map((e) => JSON.stringify(e).replace(MINTED, "c_*")));
    seq = page[page.length - 1].seq;
  }
  const memories: string[] = [];
  for (const agentId of ["lucia", "sofia", "walter", "nadia", "felix"]) {
    const all = await deps.storage.memories.all({ worldId, agentId: agentId as AgentId });
    memories.push(
      ...all.map((m) =>
        `${agentId} ${m.createdAt} ${m.kind} ${m.provenance} ${m.importance} ${m.description}`
      ),
    );
  }
  await deps.storage.close();
  return {
    summary: { ...summary, concurrency: 0 },
    events,
    memories,
    calls: sent.map((s) => `${s.attribution.agentId ?? "-"}:${s.prompt.kind}`).sort(),
  };
}

Deno.test("a seeded town makes the same calls, events and memories at concurrency 1 and 8", async () => {
  const one = await run(1, 7);
  const eight = await run(8, 7);
  assert.ok(one.events.some((e) => e.includes('"type":"conversation"')), "people talked");
  assert.deepEqual(eight.calls, one.calls);
  assert.deepEqual(eight.summary, one.summary);
  assert.deepEqual(eight.memories, one.memories);
  assert.deepEqual(eight.events, one.events);
});
