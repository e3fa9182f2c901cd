import assert from "node:assert/strict";
import { call } from "./_helpers/http_call.ts";
import { overHttp, withServer } from "./_helpers/in_process_server.ts";

Deno.test("startServer()'s minute cron advances every world once per minute, even when run twice", async () => {
  const crons: (() => Promise<void>)[] = [];
  const cron = (_name: string, _schedule: string, handler: () => Promise<void>) =>
    crons.push(handler);
  await withServer({ options: { cron } }, async (server) => {
    const created = await call(overHttp(server.url), "POST", "/v1/worlds", {
      id: "cron",
      name: "Cron",
      startTime: "2023-02-13T07:00:00",
    });
    assert.equal(created.status, 201);
    const minute = () => Math.floor(Date.now() / 60_000);
    const before = minute();
    await crons[0]();
    await crons[0](); // a second run in the same wall-clock minute changes nothing
    const minutes = minute() - before + 1; // 2 only if the wall clock crossed a minute meanwhile
    const world = await (await fetch(`${server.url}/v1/worlds/cron`)).json();
    const expected = minutes === 1 ? "2023-02-13T07:10:00" : "2023-02-13T07:20:00";
    assert.equal(world.clock.now, expected);
    const health = await (await fetch(`${server.url}/health`)).json();
    assert.equal(health.cron.runs, 2);
    const events = await (await fetch(`${server.url}/v1/worlds/cron/events`)).json();
    assert.equal(events.events.filter((e: { type: string }) => e.type === "tick").length, minutes);
    assert.match(events.events[0].tickId, /^cron:cron:\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
  });
});
