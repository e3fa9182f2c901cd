/**
 * Issue 15's storage budget over a whole game day of the example town on the hosted backend:
 * Redis HTTP requests per agent step on average, in process (the cron's tick) and through the
 * queue (every message delivered once, as Workers and Deno Deploy run them, one per invocation).
 * Counted by the metered gateway (`tests/_helpers/storage_meter.ts`); numbers in BENCHMARKS.md.
 */
import assert from "node:assert/strict";
import { hasRedisServer } from "../_helpers/backends.ts";
import { startMeteredUpstash } from "../_helpers/storage_meter.ts";
import { meterTownTicks, TOWN_AGENTS } from "../_helpers/town_storage_cost.ts";

const available = await hasRedisServer();
const quiet = { sanitizeOps: false, sanitizeResources: false };
/** A game day of 10-minute ticks. */
const TICKS = 144;

for (const queued of [false, true]) {
  Deno.test({
    name: `A game day of the example town costs at most ${
      queued ? 4.5 : 2.5
    } Redis requests per agent step ${queued ? "through the queue" : "in process"}`,
    ignore: !available,
    ...quiet,
    fn: async () => {
      const meter = await startMeteredUpstash();
      try {
        const cost = await meterTownTicks(meter, { ticks: TICKS, start: "07:00", queued });
        const steps = TOWN_AGENTS * TICKS;
        const perStep = cost.redisRequests / steps;
        // deno-lint-ignore no-console
        console.log(
          `${queued ? "queued" : "in process"}: ${perStep.toFixed(2)} requests, ${
            (cost.redisCommands / steps).toFixed(1)
          } commands, ${(cost.vectorRequests / steps).toFixed(2)} Vector requests per step`,
        );
        // Measured 1.7 in process and 4.1 queued (2026-11-24); the margin is for how concurrent
        // steps happen to share pipelined requests.
        assert.ok(perStep <= (queued ? 4.5 : 2.5), `${perStep} requests per step`);
        assert.ok(cost.vectorRequests / steps <= 1, `${cost.vectorRequests} Vector requests`);
      } finally {
        await meter.close();
      }
    },
  });
}
