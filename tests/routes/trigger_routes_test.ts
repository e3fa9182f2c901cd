/**
 * Triggers (issue 22): a game event becomes a memory with provenance `trigger:<name>` for every
 * agent (or the ones named), once per eventId; an important one goes through the reaction
 * decision and may re-plan the day; bad triggers are refused before any model call; on both
 * storage backends.
 */
import assert from "node:assert/strict";
import { startBackends } from "../_helpers/backends.ts";
import { sanitizersFor, withBackendApp } from "../_helpers/backend_app.ts";
import { call } from "../_helpers/http_call.ts";
import { worldWithAgents } from "../_helpers/http_world.ts";
import { countingModel } from "../_helpers/test_deps.ts";

const { backends, close } = await startBackends();

const AGENTS = [
  { id: "mira", name: "Mira Lund", description: "Mira keeps the lantern shop on the harbour" },
  { id: "tom", name: "Tom Berg", description: "Tom mends nets at the harbour" },
];

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] POST …/triggers delivers a memory with provenance trigger:<name>, once per eventId`,
    ...sanitizersFor(backend),
    async fn() {
      const counting = countingModel();
      await withBackendApp(backend, async (app) => {
        const w = await worldWithAgents(app, AGENTS);
        const before = counting.kinds.length;
        const sent = await call(app, "POST", `${w}/triggers`, {
          name: "quest_finished",
          description: "The player brought back the lost lantern",
          params: { quest: 3, reward: "20 coins" },
          importance: 4,
          eventId: "quest-3",
        });
        assert.equal(sent.status, 200, JSON.stringify(sent.body));
        assert.equal(sent.body.provenance, "trigger:quest_finished");
        assert.deepEqual(
          sent.body.deliveries.map((d: { agentId: string; outcome: string }) => [
            d.agentId,
            d.outcome,
          ]),
          [["mira", "created"], ["tom", "created"]],
          "no agents named: every agent",
        );
        assert.ok(sent.body.deliveries.every((d: { reaction: unknown }) => d.reaction === null));
        assert.deepEqual(
          counting.kinds.slice(before),
          [],
          "importance given: no model call (the embedder is not a model call)",
        );
        for (const agent of ["mira", "tom"]) {
          const memories = (await call(app, "GET", `${w}/agents/${agent}/memories?limit=50`)).body
            .memories as { provenance: string; description: string; importance: number }[];
          const got = memories.find((m) => m.provenance === "trigger:quest_finished")!;
          assert.equal(
            got.description,
            "The player brought back the lost lantern (quest: 3; reward: 20 coins)",
          );
          assert.equal(got.importance, 4);
        }

        const again = await call(app, "POST", `${w}/triggers`, {
          name: "quest_finished",
          description: "The player brought back the lost lantern",
          params: { quest: 3, reward: "20 coins" },
          importance: 4,
          eventId: "quest-3",
        });
        assert.deepEqual(
          again.body.deliveries.map((d: { outcome: string; memoryId: string }) => d.outcome),
          ["existing", "existing"],
        );
        assert.deepEqual(
          again.body.deliveries.map((d: { memoryId: string }) => d.memoryId),
          sent.body.deliveries.map((d: { memoryId: string }) => d.memoryId),
        );

        const one = await call(app, "POST", `${w}/triggers`, {
          name: "gossip",
          description: "A rumour says the mayor is leaving town",
          agents: ["tom"],
        });
        assert.equal(one.status, 200);
        assert.deepEqual(one.body.deliveries.map((d: { agentId: string }) => d.agentId), ["tom"]);
        assert.ok(counting.kinds.includes("importance"), "no importance given: the model rates it");
      }, { model: counting.model });
    },
  });

  Deno.test({
    name:
      `[${backend.name}] an important trigger goes through the reaction decision and re-plans the day`,
    ...sanitizersFor(backend),
    async fn() {
      const counting = countingModel();
      await withBackendApp(backend, async (app) => {
        const w = await worldWithAgents(app, AGENTS);
        const storm = await call(app, "POST", `${w}/triggers`, {
          name: "storm_started",
          description: "A violent storm breaks over the harbour",
          agents: ["mira"],
          importance: 8,
        });
        assert.equal(storm.status, 200, JSON.stringify(storm.body));
        const [delivery] = storm.body.deliveries;
        assert.equal(delivery.reaction, "react", JSON.stringify(delivery));
        assert.ok(counting.kinds.includes("reaction"), "the reaction decision ran");
        const plan = await call(app, "GET", `${w}/agents/mira/plan?date=2023-02-13`);
        assert.equal(plan.status, 200);
        assert.equal(plan.body.revision, 2, "the rest of the day was planned again");
        assert.ok(
          plan.body.items.some((i: { description: string }) => /storm/i.test(i.description)),
          JSON.stringify(plan.body.items.map((i: { description: string }) => i.description)),
        );
      }, { model: counting.model });
    },
  });

  Deno.test({
    name: `[${backend.name}] POST …/triggers refuses unknown agents and oversized texts`,
    ...sanitizersFor(backend),
    async fn() {
      const counting = countingModel();
      await withBackendApp(backend, async (app) => {
        const w = await worldWithAgents(app, AGENTS);
        const trigger = { name: "storm_started", description: "A storm" };
        const before = counting.kinds.length;
        const unknown = await call(app, "POST", `${w}/triggers`, {
          ...trigger,
          agents: ["mira", "nobody"],
        });
        assert.equal(unknown.status, 404);
        assert.equal(unknown.body.error.code, "agent_not_found");
        assert.equal(unknown.body.error.details.index, 1);
        const long = await call(app, "POST", `${w}/triggers`, {
          ...trigger,
          description: "x".repeat(2001),
        });
        assert.equal(long.status, 422);
        const params = await call(app, "POST", `${w}/triggers`, {
          ...trigger,
          params: { text: "y".repeat(2001) },
        });
        assert.equal(params.status, 422);
        const name = await call(app, "POST", `${w}/triggers`, { ...trigger, name: "Storm!" });
        assert.equal(name.status, 400);
        assert.equal((await call(app, "POST", "/v1/worlds/nowhere/triggers", trigger)).status, 404);
        assert.deepEqual(counting.kinds.slice(before), [], "refused before any model call");
        const mira = await call(app, "GET", `${w}/agents/mira/memories?limit=50`);
        assert.ok(
          !mira.body.memories.some((m: { provenance: string }) =>
            m.provenance.startsWith("trigger")
          ),
          "nothing delivered",
        );
      }, { model: counting.model });
    },
  });
}

Deno.test({
  name: "trigger routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
