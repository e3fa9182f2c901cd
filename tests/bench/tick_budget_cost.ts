// deno-lint-ignore-file no-console -- a bench script that prints its results
/**
 * @module What checking budgets in every tick step costs on the hosted backend: the three-person
 * town ticked `ticks` times with no budget, then with a world budget and a key budget (both far
 * from spent, so every step checks and runs), metered as in `hosted_storage_cost.ts`. Each
 * setting runs `rounds` times on a fresh town; requests vary a little with how reads happen to
 * share pipelines.
 *
 * Run with `deno run -A --lock=deno.dev.lock tests/bench/tick_budget_cost.ts [ticks=6] [rounds=3]`.
 */
import { meteredDeps, utcDay } from "../../lib/access/budget_meter.ts";
import { tickWorld } from "../../src/app/simulation/tick_world.ts";
import { updateWorld } from "../../src/app/world/world_store.ts";
import { startMeteredUpstash } from "../_helpers/storage_meter.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { makeTown } from "../src/domain/_town_fixture.ts";

const ticks = Number(Deno.args[0] ?? 6);
const rounds = Number(Deno.args[1] ?? 3);
const meter = await startMeteredUpstash();
const day = utcDay(Date.now());
try {
  for (let round = 0; round < rounds; round++) {
    for (const budgeted of [false, true]) {
      await using raw = await makeTestDeps({ storage: await meter.open() });
      const deps = meteredDeps(raw);
      const id = await makeTown(deps);
      if (budgeted) await updateWorld(deps, id, { settings: { budget: { callsPerDay: 1e9 } } });
      const key = budgeted ? { id: "k_bench", budget: { calls: 1e9 } } : undefined;
      let requests = 0;
      let commands = 0;
      let steps = 0;
      for (let i = 0; i < ticks; i++) {
        const { result, cost } = await meter.measure(() => tickWorld(deps, id, { day, key }));
        requests += cost.redisRequests;
        commands += cost.redisCommands;
        steps += result.steps.length;
      }
      console.log(
        `${
          budgeted ? "world + key budgets" : "no budget          "
        }: ${steps} steps, Redis requests ${requests} (${
          (requests / steps).toFixed(2)
        }/step), commands ${commands}`,
      );
    }
  }
} finally {
  await meter.close();
}
