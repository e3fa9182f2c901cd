import assert from "node:assert/strict";
import { silentLogger } from "../lib/logger.ts";
import { startServer } from "../main.ts";

Deno.test("startServer()'s minute cron advances every world once per minute, even when run twice", async () => {
  const dataDir = await Deno.makeTempDir();
  const crons: (() => Promise<void>)[] = [];
  const server = await startServer({ SIMULACRA_DATA_DIR: dataDir }, {
    port: 0,
    logger: silentLogger,
    announce: () => {},
    cron: (_name, _schedule, handler) => crons.push(handler),
  });
  try {
    const created = await fetch(`${server.url}/v1/worlds`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "cron", name: "Cron", startTime: "2023-02-13T07:00:00" }),
    });
    assert.equal(created.status, 201);
    await created.body?.cancel();
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
  } finally {
    await server.shutdown();
    await Deno.remove(dataDir, { recursive: true });
  }
});
