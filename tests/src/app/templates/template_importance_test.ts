/**
 * A template world served by a real model does not inherit the offline model's seed scores: its
 * seeds are provisional until the agent's first perceive scores them with the world's model, on
 * both storage backends. Served by the offline model (which scored the archive), nothing changes.
 */
import assert from "node:assert/strict";
import { OfflineLanguageModel } from "../../../../lib/offline/offline_language_model.ts";
import { loadAgent } from "../../../../src/app/agents/agent_store.ts";
import { perceive } from "../../../../src/app/perceive.ts";
import { createWorldFromTemplate } from "../../../../src/app/templates/create_from_template.ts";
import { AgentId, type WorldId } from "../../../../src/domain/ids.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import type { LanguageModel } from "../../../../src/ports/language_model.ts";
import { startBackends } from "../../../_helpers/backends.ts";
import { sanitizersFor } from "../../../_helpers/backend_app.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { TOWNS } from "../../../../towns/mod.ts";

const { backends, close } = await startBackends();

/** A "real" model: rates every text 7, and records the texts it was asked to rate. */
function realModel(): { model: LanguageModel; rated: string[] } {
  const offline = new OfflineLanguageModel({});
  const rated: string[] = [];
  return {
    rated,
    model: {
      info: { mode: "openai", main: "real-main", fast: "real-fast" },
      complete(prompt, attribution) {
        if (prompt.kind !== "importance") return offline.complete(prompt, attribution);
        const { observations } = prompt.input as { observations: string[] };
        rated.push(...observations);
        const value = prompt.schema.parse({ scores: observations.map(() => 7) });
        return Promise.resolve({
          value,
          usage: { calls: 1, promptTokens: 10, completionTokens: 5 },
          model: "real-fast",
        });
      },
    },
  };
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] a template world served by another model scores the seeds with it on the first perceive`,
    ...sanitizersFor(backend),
    fn: async () => {
      const { model, rated } = realModel();
      await using deps = await makeTestDeps({ storage: await backend.open(), model });
      const world = await createWorldFromTemplate(
        deps,
        CreateWorldInput.parse({ name: "Real", template: "smallville" }),
        TOWNS,
      );
      assert.equal(rated.length, 0, "creating the world calls no model");
      const scope = { worldId: world.id as WorldId, agentId: AgentId.parse("lucia") };
      const seeds = await deps.storage.memories.all(scope);
      assert.ok(seeds.length > 0 && seeds.every((m) => m.importancePending === true));
      const lucia = (await loadAgent(deps, scope)).value;
      assert.deepEqual([...lucia.pendingImportance].sort(), seeds.map((m) => m.id).sort());

      await perceive(deps, scope, {
        observations: [{ text: "A delivery of flour arrives at the cafe" }],
      });
      for (const seed of seeds) assert.ok(rated.includes(seed.description), seed.description);
      const scored = await deps.storage.memories.all(scope);
      for (const seed of scored.filter((m) => m.kind === "seed")) {
        assert.equal(seed.importance, 7, seed.description);
        assert.equal(seed.importancePending, undefined, seed.description);
      }
      assert.deepEqual((await loadAgent(deps, scope)).value.pendingImportance, []);
    },
  });

  Deno.test({
    name:
      `[${backend.name}] a template world served by the offline model keeps the archive's scores`,
    ...sanitizersFor(backend),
    fn: async () => {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const world = await createWorldFromTemplate(
        deps,
        CreateWorldInput.parse({ name: "Offline", template: "smallville" }),
        TOWNS,
      );
      const scope = { worldId: world.id as WorldId, agentId: AgentId.parse("lucia") };
      const seeds = await deps.storage.memories.all(scope);
      assert.ok(seeds.every((m) => m.importancePending === undefined));
      assert.deepEqual((await loadAgent(deps, scope)).value.pendingImportance, []);
      const owns = seeds.find((m) => /owns Marigold Cafe/.test(m.description))!;
      assert.ok(owns.importance >= 5, `who Lucia is scores ${owns.importance}`);
    },
  });
}

Deno.test({
  name: "close the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
