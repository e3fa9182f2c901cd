/**
 * @module Redis requests per agent step in every hour of the example town's game day on the
 * hosted backend (issue 25): `deno run -A tests/bench/hosted_hours.ts [mode] [hours]` with mode
 * `queue` (default: steps through a queue whose messages are handled at once, as `deno task
 * start`'s Deno KV queue does) or `process` (every step inside the tick's call, as with
 * SIMULACRA_TICK_QUEUE=off), from 07:00, 24 hours by default. Counted at the metered Upstash
 * gateway (local redis-server); prints each hour's requests (commands) per step, then the max
 * and the mean.
 */
import { startMeteredUpstash } from "../_helpers/storage_meter.ts";
import { meterTownTicks, TOWN_AGENTS } from "../_helpers/town_storage_cost.ts";

const mode = Deno.args[0] ?? "queue";
const hours = Number(Deno.args[1] ?? 24);
const meter = await startMeteredUpstash();
const byHour: { requests: number; commands: number }[] = [];
try {
  await meterTownTicks(meter, {
    ticks: hours * 6,
    start: "07:00",
    ...(mode === "queue" ? { queued: "at-once" as const } : {}),
    onTick: (tick, cost) => {
      const hour = (byHour[Math.floor(tick / 6)] ??= { requests: 0, commands: 0 });
      hour.requests += cost.redisRequests;
      hour.commands += cost.redisCommands;
    },
  });
} finally {
  await meter.close();
}
const steps = TOWN_AGENTS * 6;
const perStep = byHour.map((h) => h.requests / steps);
byHour.forEach((h, i) => {
  const at = String((7 + i) % 24).padStart(2, "0");
  // deno-lint-ignore no-console
  console.log(
    `${at}:00 ${(h.requests / steps).toFixed(2)} requests (${
      (h.commands / steps).toFixed(1)
    } commands) per step`,
  );
});
// deno-lint-ignore no-console
console.log(
  `${mode}: max ${Math.max(...perStep).toFixed(2)}, mean ${
    (perStep.reduce((a, b) => a + b, 0) / perStep.length).toFixed(2)
  } requests per agent step over ${hours} hours`,
);
