import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { runScheduledTick } from "../../src/app/simulation/scheduled_tick.ts";
import { startBackends } from "../_helpers/backends.ts";
import { sanitizersFor } from "../_helpers/backend_app.ts";
import { call as callApp } from "../_helpers/http_call.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { StreamEnds } from "../_helpers/sse.ts";

const { backends, close } = await startBackends();
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);
const MIN = 60_000;

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] clock: manual worlds only move by POST …/tick; paused ones only when asked; idle cron worlds pause themselves`,
    ...sanitizersFor(backend),
    async fn() {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      let now = T0;
      const streams = new StreamEnds();
      const app = createApp(deps, {
        logger: silentLogger,
        now: () => now,
        onEventStreamEnd: streams.hook,
      });
      const call = (method: string, path: string, body?: unknown) =>
        callApp(app, method, path, body);
      const create = (id: string, extra: Record<string, unknown> = {}) =>
        call("POST", "/v1/worlds", { id, name: id, startTime: "2023-02-13T07:00:00", ...extra });
      const clockOf = async (id: string) => (await call("GET", `/v1/worlds/${id}`)).body.clock;
      const events = async (id: string) =>
        (await call("GET", `/v1/worlds/${id}/events?type=world.paused,world.resumed`)).body
          .events;

      const manual = await create("manual", { clock: { mode: "manual" } });
      assert.equal(manual.status, 201, JSON.stringify(manual.body));
      assert.deepEqual(manual.body.clock, {
        now: "2023-02-13T07:00:00",
        minutesPerTick: 10,
        mode: "manual",
        paused: false,
      });
      const paused = await create("paused", { clock: { paused: true } });
      assert.deepEqual(paused.body.clock.mode, "cron");
      assert.equal(paused.body.clock.paused, true);
      const cron = await create("cron", { settings: { idlePauseMinutes: 5 } });
      assert.equal(cron.body.settings.idlePauseMinutes, 5);
      const never = await create("never", { settings: { idlePauseMinutes: 0 } });
      assert.equal(never.status, 201);
      assert.equal((await create("bad", { clock: { mode: "sometimes" } })).status, 400);

      // The scheduler ticks only the running cron worlds.
      const first = await runScheduledTick(deps, T0 + MIN);
      assert.deepEqual(first.ticks.map((t) => [t.worldId, t.now]), [
        ["cron", "2023-02-13T07:10:00"],
        ["never", "2023-02-13T07:10:00"],
      ]);
      assert.equal((await clockOf("manual")).now, "2023-02-13T07:00:00");
      assert.equal((await clockOf("paused")).now, "2023-02-13T07:00:00");

      // The game owns a manual world's time; a paused world still ticks when asked.
      const tick = await call("POST", "/v1/worlds/manual/tick", { minutes: 30 });
      assert.equal(tick.status, 200);
      assert.equal(tick.body.clock.now, "2023-02-13T07:30:00");
      const asked = await call("POST", "/v1/worlds/paused/tick", {});
      assert.equal(asked.status, 200, JSON.stringify(asked.body));
      assert.equal(asked.body.clock.now, "2023-02-13T07:10:00");
      assert.equal((await clockOf("paused")).paused, true, "asking does not resume it");

      // Requests keep a world alive: 4 minutes in, the cron world is used; at 8 it is not idle.
      now = T0 + 4 * MIN;
      assert.equal((await call("GET", "/v1/worlds/cron/agents")).status, 200);
      const second = await runScheduledTick(deps, T0 + 8 * MIN);
      assert.ok(second.ticks.some((t) => t.worldId === "cron" && t.now));
      // Six minutes after the last request: paused, with an event saying why.
      const third = await runScheduledTick(deps, T0 + 10 * MIN);
      assert.deepEqual(third.ticks.find((t) => t.worldId === "cron")?.paused, "idle");
      assert.ok(third.ticks.some((t) => t.worldId === "never" && t.now), "0 = never pauses");
      now = T0 + 11 * MIN;
      const idle = await clockOf("cron");
      assert.equal(idle.paused, true);
      const [pausedEvent] = await events("cron");
      assert.equal(pausedEvent.type, "world.paused");
      assert.equal(pausedEvent.reason, "idle");
      assert.equal(pausedEvent.idleMinutes, 5);
      assert.match(pausedEvent.message, /idlePauseMinutes/);
      const fourth = await runScheduledTick(deps, T0 + 12 * MIN);
      assert.ok(!fourth.ticks.some((t) => t.worldId === "cron"), "a paused world is left alone");

      // PATCH resumes it and switches modes; each pause change is an event.
      const resumed = await call("PATCH", "/v1/worlds/cron", { clock: { paused: false } });
      assert.equal(resumed.body.clock.paused, false);
      assert.deepEqual((await events("cron")).map((e: { type: string }) => e.type), [
        "world.paused",
        "world.resumed",
      ]);
      const switched = await call("PATCH", "/v1/worlds/cron", { clock: { mode: "manual" } });
      assert.equal(switched.body.clock.mode, "manual");
      const fifth = await runScheduledTick(deps, T0 + 13 * MIN);
      assert.ok(!fifth.ticks.some((t) => t.worldId === "cron"), "manual worlds are never ticked");
      assert.equal(
        (await call("PATCH", "/v1/worlds/cron", { clock: { mode: "cron", speed: 2 } })).status,
        400,
      );

      // An open event stream is someone watching: the world stays running while it is open.
      now = T0 + 20 * MIN;
      await create("watched", { settings: { idlePauseMinutes: 5 } });
      await runScheduledTick(deps, T0 + 21 * MIN); // starts its idle clock
      const stream = await app.request("/v1/worlds/watched/events?from=latest", {
        headers: { accept: "text/event-stream" },
      });
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      now = T0 + 24 * MIN;
      const watchedTick = await runScheduledTick(deps, T0 + 24 * MIN); // an event for the stream
      assert.ok(watchedTick.ticks.some((t) => t.worldId === "watched" && t.now));
      let received = "";
      while (!received.includes("data:")) received += (await reader.read()).value ?? "";
      await reader.cancel();
      const later = await runScheduledTick(deps, T0 + 28 * MIN);
      assert.ok(
        later.ticks.some((t) => t.worldId === "watched" && t.now),
        "4 minutes after the stream last delivered: not idle",
      );
      await streams.ended(1); // the disconnected stream stops before the sanitizers look
    },
  });
}

Deno.test({
  name: "clock routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
