import assert from "node:assert/strict";
import { startBackends } from "../_helpers/backends.ts";
import { sanitizersFor, withBackendApp } from "../_helpers/backend_app.ts";
import { call } from "../_helpers/http_call.ts";

const { backends, close } = await startBackends();

const PERSONA = {
  name: "Isabella Rodriguez",
  core_traits: [
    { trait: "hospitable", desc: "makes newcomers feel at home" },
    { trait: "organised" },
    { trait: "warm" },
    { trait: "curious" },
  ],
  scene_facets: [{
    title: "At the counter",
    situation: "serving regulars",
    cue_phrases: ["coffee"],
  }],
};

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] GET …/agents/{agent} shows the persona and today's plan once they exist, null before`,
    ...sanitizersFor(backend),
    fn: () =>
      withBackendApp(backend, async (app) => {
        const world = await call(app, "POST", "/v1/worlds", {
          name: "Smallville",
          startTime: "2023-02-13T07:00:00",
        });
        const a = `/v1/worlds/${world.body.id}/agents/isabella`;
        const made = await call(app, "POST", `/v1/worlds/${world.body.id}/agents`, {
          id: "isabella",
          name: "Isabella Rodriguez",
          description: "Isabella Rodriguez runs Hobbs Cafe",
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));

        const before = await call(app, "GET", a);
        assert.equal(before.status, 200, JSON.stringify(before.body));
        assert.equal(before.body.persona, null);
        assert.equal(before.body.plan, null);
        assert.equal(before.body.summary, null);

        assert.equal((await call(app, "PUT", `${a}/persona`, PERSONA)).status, 200);
        assert.equal((await call(app, "POST", `${a}/plan`)).status, 200);
        assert.equal((await call(app, "GET", `${a}/action?at=2023-02-13T09:10:00`)).status, 200);

        const after = await call(app, "GET", a);
        assert.equal(after.status, 200);
        assert.deepEqual(after.body.persona, (await call(app, "GET", `${a}/persona`)).body);
        assert.deepEqual(after.body.plan, (await call(app, "GET", `${a}/plan`)).body);
        assert.ok(after.body.plan.items.some((i: { chunks: unknown[] | null }) => i.chunks));
        assert.match(after.body.summary, /Isabella/, "planning made and cached the summary");

        const missing = await call(app, "GET", `/v1/worlds/${world.body.id}/agents/nobody`);
        assert.equal(missing.status, 404);
        assert.equal(missing.body.error.code, "agent_not_found");
      }),
  });
}

Deno.test("close backends", { sanitizeOps: false, sanitizeResources: false }, close);
