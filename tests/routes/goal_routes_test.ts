/**
 * Goals (issue 22): the game sets an agent's goals, day plans and re-plans serve the active ones
 * by priority (their items carry `goalId`), the game marks one done, `until` expires one; bad
 * lists are refused by item; goals and actions travel in the world archive; on both storage
 * backends.
 */
import assert from "node:assert/strict";
import { startBackends } from "../_helpers/backends.ts";
import { sanitizersFor, withBackendApp } from "../_helpers/backend_app.ts";
import { call, importArchive } from "../_helpers/http_call.ts";
import { worldWithAgents } from "../_helpers/http_world.ts";
import { countingModel } from "../_helpers/test_deps.ts";

const { backends, close } = await startBackends();

const AGENTS = [
  { id: "mira", name: "Mira Lund", description: "Mira keeps the lantern shop on the harbour" },
  { id: "tom", name: "Tom Berg", description: "Tom mends nets at the harbour" },
];
const GOALS = [
  {
    id: "festival",
    description: "get the shop ready for the lantern festival",
    priority: 4,
    until: "2023-02-14T18:00:00",
  },
  { id: "cat", description: "find the missing cat", priority: 5 },
  { id: "sign", description: "repaint the shop sign", priority: 2, until: "2023-02-12T12:00:00" },
];

type Item = { start: string; description: string; goalId?: string };

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] goals: plans serve the active ones by priority; done and expired ones are left out`,
    ...sanitizersFor(backend),
    async fn() {
      const counting = countingModel();
      await withBackendApp(backend, async (app) => {
        const w = await worldWithAgents(app, AGENTS);
        const a = `${w}/agents/mira`;
        assert.deepEqual((await call(app, "GET", `${a}/goals`)).body, [], "none set yet");
        const put = await call(app, "PUT", `${a}/goals`, GOALS);
        assert.equal(put.status, 200, JSON.stringify(put.body));
        assert.deepEqual(
          put.body.map((g: { id: string; status: string }) => [g.id, g.status]),
          [["festival", "active"], ["cat", "active"], ["sign", "expired"]],
        );

        const calls = counting.kinds.length;
        const plan = await call(app, "POST", `${a}/plan`, { date: "2023-02-13" });
        assert.equal(plan.status, 200, JSON.stringify(plan.body));
        assert.equal(
          counting.kinds.slice(calls).filter((k) => k === "day_plan").length,
          1,
          "goals ride in the one day-plan call",
        );
        const served = (plan.body.items as Item[]).filter((i) => i.goalId);
        assert.deepEqual(served.map((i) => i.goalId), ["cat", "festival"], "most pressing first");
        assert.match(served[0].description, /missing cat/);
        const prompt = counting.sent.filter((s) => s.prompt.kind === "day_plan").at(-1)!.prompt;
        const user = prompt.messages[1].content;
        assert.match(user, /GOALS_DATA[\s\S]*1\. find the missing cat[\s\S]*2\. get the shop/);
        assert.doesNotMatch(user, /repaint/, "an expired goal is not planned for");

        const read = await call(app, "GET", `${a}/goals`);
        const byId = new Map(
          (read.body as { id: string; servedBy: unknown[] }[]).map((g) => [g.id, g]),
        );
        assert.equal(byId.get("cat")!.servedBy.length, 1);
        assert.equal(byId.get("festival")!.servedBy.length, 1);
        assert.deepEqual(byId.get("sign")!.servedBy, []);

        const done = await call(app, "PATCH", `${a}/goals/festival`, { status: "done" });
        assert.equal(done.status, 200, JSON.stringify(done.body));
        assert.equal(done.body.status, "done");
        assert.equal(done.body.doneAt, "2023-02-13T07:00:00");
        const reput = await call(app, "PUT", `${a}/goals`, GOALS);
        assert.equal(
          reput.body.find((g: { id: string }) => g.id === "festival").status,
          "done",
          "a goal set again stays done",
        );

        // A re-plan serves the goals still active: the festival is done.
        const replan = await call(app, "POST", `${a}/plan`, {
          from: "2023-02-13T12:00:00",
          reason: "the harbour master asked for help",
        });
        assert.equal(replan.status, 200, JSON.stringify(replan.body));
        const after = (replan.body.items as Item[]).filter((i) => i.start >= "2023-02-13T12:00");
        assert.ok(after.some((i) => i.goalId === "cat"), JSON.stringify(after));
        assert.ok(!after.some((i) => i.goalId === "festival"), "a done goal is not planned for");

        // Without goals the day plan prompt is as it was.
        const tom = await call(app, "POST", `${w}/agents/tom/plan`, { date: "2023-02-13" });
        assert.equal(tom.status, 200);
        assert.ok(!(tom.body.items as Item[]).some((i) => i.goalId));
        const tomPrompt = counting.sent.filter((s) => s.prompt.kind === "day_plan").at(-1)!.prompt;
        assert.doesNotMatch(tomPrompt.messages.map((m) => m.content).join("\n"), /goal/i);
        assert.equal((await call(app, "GET", `${w}/agents/tom/goals`)).body.length, 0);

        const reopened = await call(app, "PATCH", `${a}/goals/festival`, { status: "active" });
        assert.equal(reopened.body.status, "active");
        assert.equal(reopened.body.doneAt, undefined);
      }, { model: counting.model });
    },
  });

  Deno.test({
    name:
      `[${backend.name}] goals: bad lists are refused by item; unknown goals and agents are 404`,
    ...sanitizersFor(backend),
    fn: () =>
      withBackendApp(backend, async (app) => {
        const w = await worldWithAgents(app, AGENTS);
        const a = `${w}/agents/mira`;
        const refused = async (body: unknown, status: number, index: number, text: RegExp) => {
          const res = await call(app, "PUT", `${a}/goals`, body);
          assert.equal(res.status, status, JSON.stringify(res.body));
          assert.equal(res.body.error.details.index, index);
          assert.match(res.body.error.message, text);
        };
        await refused([GOALS[0], { ...GOALS[1], id: "festival" }], 422, 1, /already used/);
        await refused([{ ...GOALS[1], description: "x".repeat(301) }], 422, 0, /300/);
        await refused([GOALS[1], { ...GOALS[0], priority: 6 }], 400, 1, /6|5/);
        const many = Array.from({ length: 21 }, (_, i) => ({ ...GOALS[1], id: `g${i}` }));
        assert.equal((await call(app, "PUT", `${a}/goals`, many)).status, 400);
        assert.deepEqual((await call(app, "GET", `${a}/goals`)).body, [], "nothing written");
        const unknown = await call(app, "PATCH", `${a}/goals/nope`, { status: "done" });
        assert.equal(unknown.status, 404);
        assert.equal(unknown.body.error.code, "not_found");
        const bad = await call(app, "PATCH", `${a}/goals/nope`, { status: "expired" });
        assert.equal(bad.status, 400);
        const nobody = await call(app, "PUT", `${w}/agents/nobody/goals`, GOALS);
        assert.equal(nobody.status, 404);
        assert.equal(nobody.body.error.code, "agent_not_found");
      }),
  });

  Deno.test({
    name: `[${backend.name}] goals and actions travel in the world archive`,
    ...sanitizersFor(backend),
    fn: () =>
      withBackendApp(backend, async (app) => {
        const w = await worldWithAgents(app, AGENTS);
        const actions = [{
          name: "give_item",
          description: "Hand an item to the customer",
          parameters: { type: "object", properties: { item: { type: "string" } } },
        }];
        assert.equal((await call(app, "PUT", `${w}/actions`, actions)).status, 200);
        assert.equal((await call(app, "PUT", `${w}/agents/mira/goals`, GOALS)).status, 200);
        await call(app, "PATCH", `${w}/agents/mira/goals/cat`, { status: "done" });
        const goals = (await call(app, "GET", `${w}/agents/mira/goals`)).body;
        const exported = await app.request(`${w}/export`);
        assert.equal(exported.status, 200);
        const fork = await importArchive(app, await exported.text(), "?id=harbour-b");
        assert.equal(fork.status, 201, JSON.stringify(fork.body));
        const copy = "/v1/worlds/harbour-b";
        assert.deepEqual((await call(app, "GET", `${copy}/actions`)).body, actions);
        assert.deepEqual((await call(app, "GET", `${copy}/agents/mira/goals`)).body, goals);

        // Deleting an agent removes its goals with it.
        assert.equal((await call(app, "DELETE", `${copy}/agents/mira`)).status, 200);
        const again = await call(app, "POST", `${copy}/agents`, AGENTS[0]);
        assert.equal(again.status, 201);
        assert.deepEqual((await call(app, "GET", `${copy}/agents/mira/goals`)).body, []);
      }),
  });
}

Deno.test({
  name: "goal routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
