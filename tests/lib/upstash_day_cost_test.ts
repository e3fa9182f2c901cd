/**
 * Issue 15's storage budget over a whole game day of the example town on the hosted backend:
 * Redis HTTP requests per agent step on average, in process (the cron's tick) and through the
 * queue as each entry consumes it. Counted by the metered gateway
 * (`tests/_helpers/storage_meter.ts`); numbers in BENCHMARKS.md.
 */
import assert from "node:assert/strict";
import { hasRedisServer } from "../_helpers/backends.ts";
import { startMeteredUpstash } from "../_helpers/storage_meter.ts";
import { meterTownTicks, TOWN_AGENTS, type TownTicks } from "../_helpers/town_storage_cost.ts";

const available = await hasRedisServer();
const quiet = { sanitizeOps: false, sanitizeResources: false };
/** A game day of 10-minute ticks. */
const TICKS = 144;

// Measured on 2026-11-24: 1.5-1.6, 1.0, 1.4 and 3.6. The margins are for how concurrent steps
// happen to share pipelined requests.
const cases: { how: string; run: Pick<TownTicks, "queued" | "batch">; most: number }[] = [
  { how: "in process", run: {}, most: 2.5 },
  {
    how: "through a Deno KV queue (messages handled at once)",
    run: { queued: "at-once" },
    most: 2,
  },
  {
    how: "through Cloudflare Queues in batches of 10 (wrangler.toml)",
    run: { queued: "at-once", batch: 10 },
    most: 2.5,
  },
  {
    how: "through Cloudflare Queues one message per invocation (free plan)",
    run: { queued: "one-by-one" },
    most: 4,
  },
];

for (const { how, run, most } of cases) {
  Deno.test({
    name: `A game day of the example town costs at most ${most} Redis requests per step ${how}`,
    ignore: !available,
    ...quiet,
    fn: async () => {
      const meter = await startMeteredUpstash();
      try {
        const cost = await meterTownTicks(meter, { ticks: TICKS, start: "07:00", ...run });
        const steps = TOWN_AGENTS * TICKS;
        const perStep = cost.redisRequests / steps;
        // deno-lint-ignore no-console
        console.log(
          `${how}: ${perStep.toFixed(2)} requests, ${
            (cost.redisCommands / steps).toFixed(1)
          } commands, ${(cost.vectorRequests / steps).toFixed(2)} Vector requests per step`,
        );
        assert.ok(perStep <= most, `${perStep} requests per step`);
        assert.ok(cost.vectorRequests / steps <= 1, `${cost.vectorRequests} Vector requests`);
      } finally {
        await meter.close();
      }
    },
  });
}
