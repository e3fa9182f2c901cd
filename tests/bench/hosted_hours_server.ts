/**
 * @module Redis requests per agent step in every hour of the example town's game day through
 * the real server on the hosted backend (issue 25): `deno run -A
 * tests/bench/hosted_hours_server.ts [hours] [start]` (default 24 hours from 07:00). Starts
 * redis-server, the local Upstash gateway (which counts requests) and vector server here, then
 * `main.ts` in a child process over them with its defaults (offline model, the Deno KV tick
 * queue); creates the smallville template world and sends `POST …/tick` (10 minutes, waiting
 * for the steps) one after another. Prints each hour's Redis requests (commands) per agent step,
 * then the max and the mean. `BENCH_ROOT` runs another checkout's `main.ts` (before/after);
 * `BENCH_TRACE=h` prints every request's commands (name and first key) in hour h (0: the first;
 * `all`: every hour), each line starting with the hour's index.
 */
import { meterServerHours } from "../_helpers/hosted_server_hours.ts";

const traced = Deno.env.get("BENCH_TRACE");
const root = Deno.env.get("BENCH_ROOT");
const hours = await meterServerHours({
  hours: Number(Deno.args[0] ?? 24),
  start: Deno.args[1],
  root,
  trace: traced === undefined ? undefined : {
    hour: traced === "all" ? undefined : Number(traced),
    // deno-lint-ignore no-console
    onRequest: (commands, hour) => console.log(`${hour} ${commands.join(" | ")}`),
  },
});
for (const h of hours) {
  // deno-lint-ignore no-console
  console.log(
    `${h.hour} ${h.perStep.toFixed(2)} requests (${
      (h.commands / (h.requests / h.perStep)).toFixed(1)
    } request commands) per step`,
  );
}
const perStep = hours.map((h) => h.perStep);
// deno-lint-ignore no-console
console.log(
  `${root ?? "this checkout"}: max ${Math.max(...perStep).toFixed(2)}, mean ${
    (perStep.reduce((a, b) => a + b, 0) / perStep.length).toFixed(2)
  } Redis requests per agent step over ${hours.length} hours`,
);
