/**
 * Attention in ticks: a step perceives at most the world's `attentionBandwidth` new events from
 * its surroundings (what addresses the agent and what its own action uses always count), on
 * both storage backends; the setting is validated like the others.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../../../lib/logger.ts";
import { createApp } from "../../../../routes/app.ts";
import { CreateAgentInput } from "../../../../src/domain/agent/agent.ts";
import type { AgentId, WorldId } from "../../../../src/domain/ids.ts";
import { Environment } from "../../../../src/domain/world/environment.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { updateAgent } from "../../../../src/app/lifecycle/update_agent.ts";
import { tickWorld } from "../../../../src/app/simulation/tick_world.ts";
import { replaceEnvironment } from "../../../../src/app/world/environment_store.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import { sanitizersFor } from "../../../_helpers/backend_app.ts";
import { startBackends } from "../../../_helpers/backends.ts";
import { coreWorld } from "../../../_helpers/core_world.ts";
import { call } from "../../../_helpers/http_call.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { TOWN } from "../../domain/_town_fixture.ts";

const { backends, close } = await startBackends();

const GUESTS = ["Bo Diaz", "Cy Moss", "Di Park", "Ed Wu", "Flo Kerr", "Gus Hale", "Hal Ives"];

/**
 * Ann at the cafe counter (its state set by someone), seven guests around her, Zed in the
 * kitchen calling out to her: nine people in one area at the first tick.
 */
async function crowdedCafe(deps: Deps, bandwidth: number): Promise<WorldId> {
  const { id } = await coreWorld(deps, {
    name: "Crowded",
    settings: { attentionBandwidth: bandwidth },
  });
  const env = Environment.parse(TOWN);
  env.areas[0].subAreas[0].objects[0].state = "sticky with spilt syrup";
  await replaceEnvironment(deps, id, env);
  const people: [string, string, string][] = [
    ["Ann Lee", "Hobbs Cafe:cafe:counter", "wiping the counter"],
    ...GUESTS.map((
      name,
    ): [string, string, string] => [name, "Hobbs Cafe:cafe:table", "finding a seat"]),
    ["Zed Roe", "Hobbs Cafe:kitchen:stove", "calling out to Ann across the room"],
  ];
  for (const [name, location, action] of people) {
    const agentId = name.split(" ")[0].toLowerCase() as AgentId;
    await createAgent(
      deps,
      id,
      CreateAgentInput.parse({ id: agentId, name, description: `${name} likes the cafe` }),
    );
    await updateAgent(deps, { worldId: id, agentId }, { location, action });
  }
  return id;
}

/** Each agent's stored observations, by id. */
async function observations(deps: Deps, id: WorldId): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const name of ["Ann Lee", ...GUESTS, "Zed Roe"]) {
    const agentId = name.split(" ")[0].toLowerCase() as AgentId;
    const listed = await deps.storage.memories.list(
      { worldId: id, agentId },
      { kind: "observation", limit: 100 },
    );
    out.set(agentId, listed.memories.map((m) => m.description));
  }
  return out;
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] a tick step perceives at most attentionBandwidth new events; what addresses the agent and its own object always count`,
    ...sanitizersFor(backend),
    async fn() {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const id = await crowdedCafe(deps, 2);
      const result = await tickWorld(deps, id, { tickId: "t0" });
      const seen = await observations(deps, id);
      for (const step of result.steps) {
        // Ann: Zed's call and her own counter; Zed: the stove he stands at.
        const extra = step.agentId === "ann" ? 2 : step.agentId === "zed" ? 1 : 0;
        assert.ok(step.perceived <= 2 + extra, `${step.agentId} perceived ${step.perceived}`);
        assert.equal(seen.get(step.agentId)!.length, step.perceived);
      }
      const ann = seen.get("ann")!;
      assert.ok(ann.some((t) => /Zed Roe is calling out to Ann/.test(t)), ann.join(" | "));
      assert.ok(ann.some((t) => /the counter .* is sticky/.test(t)), ann.join(" | "));
      assert.equal(ann.length, 4, "Zed, the counter and two of the seven guests");

      await using wide = await makeTestDeps({ storage: await backend.open() });
      const all = await crowdedCafe(wide, 50);
      await tickWorld(wide, all, { tickId: "t0" });
      const seenAll = await observations(wide, all);
      assert.equal(seenAll.get("bo")!.length, 10, "with room for it: 8 people and 2 objects");
      const total = (m: Map<string, string[]>) => [...m.values()].reduce((n, l) => n + l.length, 0);
      assert.ok(total(seen) * 3 < total(seenAll), `${total(seen)} vs ${total(seenAll)}`);
    },
  });
}

Deno.test("attentionBandwidth is a world setting of 1–50, 3 by default", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const create = (id: string, settings: Record<string, unknown>) =>
    call(app, "POST", "/v1/worlds", { id, name: id, startTime: "2023-02-13T07:00:00", settings });
  assert.equal((await create("plain", {})).body.settings.attentionBandwidth, 3);
  assert.equal((await create("wide", { attentionBandwidth: 50 })).status, 201);
  for (const bad of [0, 51, 2.5]) {
    const refused = await create(`bad${bad}`, { attentionBandwidth: bad });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
  }
  const patched = await call(app, "PATCH", "/v1/worlds/plain", {
    settings: { attentionBandwidth: 7 },
  });
  assert.equal(patched.body.settings.attentionBandwidth, 7);
  const refused = await call(app, "PATCH", "/v1/worlds/plain", {
    settings: { attentionBandwidth: 0 },
  });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
});

Deno.test({
  name: "attention tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
