// deno-lint-ignore-file no-console -- a bench script that prints its results
/**
 * @module Storage cost of the example town on the hosted backend (issue 15): the 25-agent
 * smallville template ticked in 10-minute steps with the offline model, on Upstash clients →
 * the dev gateway → a redis-server of its own (commands counted by `INFO commandstats`, so those
 * inside scripts count) and the dev vector server. Prints Redis HTTP requests, commands and
 * Vector requests per agent step and per agent-day, and the commands by name. With `queued`, each
 * tick goes through the queue as a server with `TICK_QUEUE` runs it (`startTick`, then every
 * message delivered once, closes included) instead of in one process: one message at a time, as
 * Workers consume them, or with `queued-at-once` the messages sent together handled concurrently,
 * as a Deno KV queue's listener handles them.
 *
 * Run with `deno run -A --lock=deno.dev.lock tests/bench/hosted_storage_cost.ts [hours=2] [start=08:00] [queued|queued-at-once [batch]]`.
 */
import { meterTownTicks, TOWN_AGENTS } from "../_helpers/town_storage_cost.ts";
import { startMeteredUpstash } from "../_helpers/storage_meter.ts";

const hours = Number(Deno.args[0] ?? 2);
const start = Deno.args[1] ?? "08:00";
const mode = Deno.args[2];
if (mode !== undefined && mode !== "queued" && mode !== "queued-at-once") {
  throw new Error(`Unknown mode "${mode}": queued or queued-at-once`);
}
const queued = mode === "queued" ? "one-by-one" : mode === "queued-at-once" ? "at-once" : undefined;
const batch = Deno.args[3] === undefined ? undefined : Number(Deno.args[3]);
const meter = await startMeteredUpstash();
try {
  const agents = TOWN_AGENTS;
  const ticks = hours * 6;
  let requests = 0;
  let commands = 0;
  const total = await meterTownTicks(meter, {
    ticks,
    start,
    queued,
    batch,
    onTick: (t, cost, parts) => {
      if (parts) {
        const sum = (n: number[]) => n.reduce((a, b) => a + b, 0);
        console.log(
          `tick ${t}: plan ${parts.plan}, ${parts.steps.length} step messages ${
            sum(parts.steps)
          } (${parts.steps.join(" ")}), close checks ${sum(parts.checks)}`,
        );
      }
      requests += cost.redisRequests;
      commands += cost.redisCommands;
      // Progress on long runs: a line per game hour, to stderr so stdout stays the summary.
      if ((t + 1) % 6 === 0) {
        const done = agents * (t + 1);
        console.error(
          `hour ${(t + 1) / 6}/${hours}: ${(requests / done).toFixed(2)} requests, ${
            (commands / done).toFixed(1)
          } commands per step so far`,
        );
      }
    },
  });
  const steps = agents * ticks;
  const perStep = (n: number) => (n / steps).toFixed(1);
  const perDay = (n: number) => Math.round((n / steps) * 144);
  console.log(
    `${
      queued ? `queued (${queued}${batch ? `, batches of ${batch}` : ""}): ` : ""
    }${agents} agents × ${ticks} ticks of 10 min from ${start} (${steps} agent steps)`,
  );
  console.log(
    `per agent step: ${perStep(total.redisRequests)} Redis requests, ${
      perStep(total.redisCommands)
    } commands, ${perStep(total.vectorRequests)} Vector requests`,
  );
  console.log(
    `per agent-day (×144 steps): ${perDay(total.redisRequests)} requests, ${
      perDay(total.redisCommands)
    } commands, ${perDay(total.vectorRequests)} Vector requests`,
  );
  const top = Object.entries(total.byCommand).sort((a, b) => b[1] - a[1]).slice(0, 12);
  console.log(`commands: ${top.map(([k, v]) => `${k} ${v}`).join(", ")}`);
  console.log(`vector: ${JSON.stringify(total.byVectorEndpoint)}`);
} finally {
  await meter.close();
}
