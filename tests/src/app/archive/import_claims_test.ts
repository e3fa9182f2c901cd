/**
 * @module An imported world's event claims hold after a restart on the embedded store: a
 * perceive of an event the archive's memories came from finds the imported memory (the claims of
 * a large import are stored in packs, `lib/kv/_claim_packs.ts`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openKvStorage } from "../../../../lib/kv/kv_storage.ts";
import { exportWorld } from "../../../../src/app/archive/export_world.ts";
import { importWorld } from "../../../../src/app/archive/import_world.ts";
import { perceive } from "../../../../src/app/perceive.ts";
import { AgentId, WorldId } from "../../../../src/domain/ids.ts";
import { PerceiveInput } from "../../../../src/domain/memory/perceive.ts";
import { BENCH_WORLD, benchDeps, fillBenchWorld } from "../../../_helpers/bench_archive_world.ts";

Deno.test("importWorld() claims every memory's event, so a perceive after a restart finds it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "simulacra-import-claims-" });
  try {
    const source = benchDeps(await openKvStorage({ dimensions: 384 }));
    await fillBenchWorld(source, {
      agents: 1,
      memories: 300,
      batch: 100,
      idDigits: 4,
      eventIds: true,
    });
    const lines = await Array.fromAsync(exportWorld(source, BENCH_WORLD));
    await source.storage.close();

    const path = join(dir, "copy.kv");
    const copy = benchDeps(await openKvStorage({ path, dimensions: 384 }));
    const imported = await importWorld(
      copy,
      (async function* () {
        yield* lines;
      })(),
    );
    assert.ok(imported.counts.memories >= 300);
    await copy.storage.close();

    const reopened = benchDeps(await openKvStorage({ path, dimensions: 384 }));
    try {
      const scope = { worldId: WorldId.parse("bench"), agentId: AgentId.parse("agent0") };
      const all = await reopened.storage.memories.all(scope);
      const original = all.find((m) => m.eventId === "tick250:someone")!;
      const result = await perceive(
        reopened,
        scope,
        PerceiveInput.parse({
          observations: [{ text: original.description, eventId: "tick250:someone" }],
        }),
      );
      assert.deepEqual(result.outcomes, ["existing"]);
      assert.equal(result.memories[0].id, original.id);
      const stored = await reopened.storage.memories.count(scope);
      assert.equal(stored, imported.counts.memories, "Nothing stored again");
    } finally {
      await reopened.storage.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
