import assert from "node:assert/strict";
import { createApp } from "../../routes/app.ts";
import { startBackends } from "../_helpers/backends.ts";
import { appOn, eventStreamsEnded, sanitizersFor } from "../_helpers/backend_app.ts";
import { readSse } from "../_helpers/sse.ts";
import { recordingModel, RESIDENTS, TOWN } from "../src/domain/_town_fixture.ts";
import { call } from "../_helpers/http_call.ts";

const { backends, close } = await startBackends();

type App = ReturnType<typeof createApp>;

/** A world over HTTP; with `town`, the three-person town's environment and residents too. */
async function world(app: App, options: { town?: boolean; startTime?: string } = {}) {
  const made = await call(app, "POST", "/v1/worlds", {
    name: "Town",
    startTime: options.startTime ?? "2023-02-13T06:50:00",
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const w = `/v1/worlds/${made.body.id}`;
  if (options.town) {
    assert.equal((await call(app, "PUT", `${w}/environment`, TOWN)).status, 200);
    for (const resident of RESIDENTS) {
      const agent = await call(app, "POST", `${w}/agents`, resident);
      assert.equal(agent.status, 201, JSON.stringify(agent.body));
    }
  }
  return w;
}

async function clockOf(app: App, w: string): Promise<string> {
  return (await call(app, "GET", w)).body.clock.now;
}

for (const backend of backends) {
  const opts = sanitizersFor(backend);
  const withApp = appOn(backend);

  Deno.test({
    name: `[${backend.name}] POST …/tick advances once per tick id, sequentially and concurrently`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await world(app, { town: true });
        const first = await call(app, "POST", `${w}/tick`, { tickId: "a", minutes: 10 });
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.equal(first.body.clock.now, "2023-02-13T07:00:00");
        assert.equal(first.body.from, "2023-02-13T06:50:00");
        assert.deepEqual(first.body.steps.map((s: { agentId: string }) => s.agentId), [
          "eddy",
          "isabella",
          "john",
        ]);
        const repeat = await call(app, "POST", `${w}/tick`, { tickId: "a", minutes: 30 });
        assert.deepEqual(repeat, first);
        assert.equal(await clockOf(app, w), "2023-02-13T07:00:00");

        const five = await Promise.all(
          Array.from({ length: 5 }, () => call(app, "POST", `${w}/tick`, { tickId: "b" })),
        );
        for (const r of five) assert.deepEqual(r, five[0]);
        assert.equal(five[0].status, 200);
        assert.equal(await clockOf(app, w), "2023-02-13T07:10:00");

        const distinct = await Promise.all(
          ["c", "d", "e"].map((tickId) => call(app, "POST", `${w}/tick`, { tickId, minutes: 5 })),
        );
        const spans = distinct.map((r) => `${r.body.from}→${r.body.clock.now}`).sort();
        assert.deepEqual(spans, [
          "2023-02-13T07:10:00→2023-02-13T07:15:00",
          "2023-02-13T07:15:00→2023-02-13T07:20:00",
          "2023-02-13T07:20:00→2023-02-13T07:25:00",
        ]);
        assert.equal(await clockOf(app, w), "2023-02-13T07:25:00");

        const noBody = await app.request(`${w}/tick`, { method: "POST" });
        assert.equal(noBody.status, 200);
        assert.equal((await noBody.json()).clock.now, "2023-02-13T07:35:00");
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] POST …/tick refuses bad minutes, still ticks a paused world; PATCH world merges settings`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await world(app);
        for (const minutes of [0, 1441, -5, 1.5]) {
          const bad = await call(app, "POST", `${w}/tick`, { minutes });
          assert.equal(bad.status, 400, `minutes ${minutes}`);
          assert.equal(bad.body.error.code, "invalid_request");
        }
        assert.equal((await call(app, "POST", `${w}/tick`, { nope: 1 })).status, 400);
        const unknown = await call(app, "POST", "/v1/worlds/nowhere/tick", {});
        assert.equal(unknown.status, 404);
        assert.equal(unknown.body.error.code, "world_not_found");

        const paused = await call(app, "PATCH", w, {
          paused: true,
          minutesPerTick: 15,
          settings: { conversationCooldownMinutes: 90 },
        });
        assert.equal(paused.status, 200, JSON.stringify(paused.body));
        assert.deepEqual(paused.body.clock, {
          now: "2023-02-13T06:50:00",
          minutesPerTick: 15,
          mode: "cron",
          paused: true,
        });
        assert.equal(paused.body.settings.conversationCooldownMinutes, 90);
        assert.equal(paused.body.settings.reflectionThreshold, 150, "other settings stay");
        // Pausing stops the scheduler; a tick the caller asks for still runs.
        const asked = await call(app, "POST", `${w}/tick`, { tickId: "p" });
        assert.equal(asked.status, 200);
        assert.equal(asked.body.clock.now, "2023-02-13T07:05:00", "minutesPerTick 15");
        assert.equal(asked.body.clock.paused, true, "and the world stays paused");
        assert.equal((await call(app, "PATCH", w, { clock: { now: "x" } })).status, 400);
        assert.equal((await call(app, "PATCH", w, { settings: { nope: 1 } })).status, 400);
        assert.equal(
          (await call(app, "PATCH", "/v1/worlds/nowhere", { paused: true })).status,
          404,
        );
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] an object state set with PATCH …/objects is perceived by the agent at it on the next tick`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await world(app, { town: true });
        await call(app, "POST", `${w}/tick`, { tickId: "t1" });
        const isabella = await call(app, "GET", `${w}/agents/isabella`);
        const at: string = isabella.body.location;
        assert.equal(at.split(":").length, 3, `standing at an object: ${at}`);
        const set = await call(app, "PATCH", `${w}/objects`, {
          path: at,
          state: "covered in glitter",
        });
        assert.equal(set.status, 200, JSON.stringify(set.body));

        const tick = await call(app, "POST", `${w}/tick`, { tickId: "t2" });
        const step = tick.body.steps.find((s: { agentId: string }) => s.agentId === "isabella");
        assert.ok(step.perceived >= 1);
        const [area, sub, object] = at.split(":");
        const text = `the ${object} in the ${sub} of ${area} is covered in glitter`;
        const seen = await call(app, "GET", `${w}/agents/isabella/memories?kind=observation`);
        const memory = seen.body.memories.find((m: { description: string }) =>
          m.description === text
        );
        assert.ok(
          memory,
          JSON.stringify(seen.body.memories.map((m: { description: string }) => m.description)),
        );
        assert.equal(memory.createdAt, tick.body.clock.now);
        assert.equal(memory.location, at);
        const events = await call(app, "GET", `${w}/events?limit=1000`);
        const perceived = events.body.events.find((
          e: { type: string; agentId?: string; tickId: string },
        ) => e.type === "perceived" && e.agentId === "isabella" && e.tickId === "t2");
        assert.ok(perceived.observations.includes(text));
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] one agent's failure becomes an agent_error event; the others step and the clock advances once`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await world(app, { town: true });
        const tick = await call(app, "POST", `${w}/tick`, { tickId: "f" });
        assert.equal(tick.status, 200);
        const byId = Object.fromEntries(
          tick.body.steps.map((s: { agentId: string }) => [s.agentId, s]),
        );
        assert.match(byId.john.error, /Cannot reach the model/);
        assert.equal(byId.eddy.error, undefined);
        assert.equal(byId.isabella.error, undefined);
        assert.ok(byId.eddy.action && byId.isabella.action);
        assert.equal(await clockOf(app, w), "2023-02-13T07:00:00");
        assert.deepEqual(await call(app, "POST", `${w}/tick`, { tickId: "f" }), tick);
        assert.equal(await clockOf(app, w), "2023-02-13T07:00:00");
        const events = await call(app, "GET", `${w}/events`);
        const errors = events.body.events.filter((e: { type: string }) => e.type === "agent_error");
        assert.deepEqual(
          errors.map((e: { agentId: string; code: string }) => [e.agentId, e.code]),
          [
            ["john", "model_unavailable"],
          ],
        );
      }, { model: recordingModel("john").model }),
  });

  Deno.test({
    name: `[${backend.name}] GET …/events lists pages and streams SSE with Last-Event-ID`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await world(app);
        for (const tickId of ["1", "2", "3"]) await call(app, "POST", `${w}/tick`, { tickId });
        const page = await call(app, "GET", `${w}/events?limit=2`);
        assert.equal(page.status, 200);
        assert.deepEqual(page.body.events.map((e: { seq: number }) => e.seq), [1, 2]);
        assert.equal(page.body.next, 2);
        const first = page.body.events[0];
        assert.equal(first.type, "tick");
        assert.equal(first.at, "2023-02-13T07:00:00");
        assert.equal(first.tickId, "1");
        const rest = await call(app, "GET", `${w}/events?after=${page.body.next}`);
        assert.deepEqual(rest.body.events.map((e: { seq: number }) => e.seq), [3]);
        assert.equal(rest.body.next, 3);
        assert.equal((await call(app, "GET", `${w}/events?limit=1001`)).status, 400);
        assert.equal((await call(app, "GET", "/v1/worlds/nowhere/events")).status, 404);

        const sse = await app.request(`${w}/events`, {
          headers: { accept: "text/event-stream" },
        });
        assert.equal(sse.status, 200);
        assert.match(sse.headers.get("content-type") ?? "", /text\/event-stream/);
        const live = readSse(sse, 4);
        await call(app, "POST", `${w}/tick`, { tickId: "4" });
        const messages = await live;
        assert.deepEqual(messages.map((m) => m.id), ["1", "2", "3", "4"]);
        assert.equal((messages[3].data as { tickId: string }).tickId, "4");

        const resumed = await app.request(`${w}/events`, {
          headers: { accept: "text/event-stream", "last-event-id": "3" },
        });
        assert.deepEqual((await readSse(resumed, 1)).map((m) => m.id), ["4"]);
        const missing = await app.request("/v1/worlds/nowhere/events", {
          headers: { accept: "text/event-stream" },
        });
        assert.equal(missing.status, 404);
        await missing.body?.cancel();
        // Both disconnected streams stop before the sanitizers look.
        await eventStreamsEnded(app, 2);
      }),
  });
}

Deno.test({
  name: "tick routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
