/**
 * What the hosted backend costs in storage round trips and commands (issue 15), counted on a
 * redis-server of this test's own (`INFO commandstats`, so commands inside scripts count), the
 * dev gateway's request counter and the dev vector server's. Numbers are in BENCHMARKS.md.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import type { WorldId } from "../../src/ids.ts";
import { hasRedisServer } from "../_helpers/backends.ts";
import { startMeteredUpstash } from "../_helpers/storage_meter.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

const available = await hasRedisServer();
const meter = available ? await startMeteredUpstash() : null;
const ignore = !available;
const quiet = { sanitizeOps: false, sanitizeResources: false };

Deno.test({
  name: "An idle SSE event stream costs at most one Redis command per 5 s, and wakes on an append",
  ignore,
  ...quiet,
  fn: async () => {
    await using deps = await makeTestDeps({ storage: await meter!.open() });
    const app = createApp(deps, { logger: silentLogger });
    const made = await app.request("/v1/worlds", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Quiet", startTime: "2023-02-13T07:00:00" }),
    });
    const world = (await made.json()).id as WorldId;
    const stop = new AbortController();
    const res = await app.request(`/v1/worlds/${world}/events`, {
      headers: { accept: "text/event-stream" },
      signal: stop.signal,
    });
    assert.equal(res.status, 200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      // Let the stream make its first read, then watch it idle.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const idle = await meter!.measure(() => new Promise((resolve) => setTimeout(resolve, 3_000)));
      assert.ok(
        idle.cost.redisCommands <= 1 && idle.cost.redisRequests <= 1,
        `3 idle seconds cost ${JSON.stringify(idle.cost)}`,
      );

      const appendedAt = performance.now();
      await deps.storage.events.append(world, [{ type: "note", at: "2023-02-13T07:00:00" }]);
      let text = "";
      while (!text.includes('"type":"note"')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      assert.ok(text.includes('"type":"note"'), text);
      assert.ok(performance.now() - appendedAt < 1_000, "The event arrives at once");
    } finally {
      stop.abort();
      await reader.cancel().catch(() => {});
    }
  },
});

Deno.test({
  name: "storage cost: stop the metered servers",
  ignore,
  ...quiet,
  fn: () => meter!.close(),
});
