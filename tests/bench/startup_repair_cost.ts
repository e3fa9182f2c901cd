// deno-lint-ignore-file no-console -- a bench script that prints its results
/**
 * @module Storage cost of the start-up repair sweep on the hosted backend: `worlds` copies of the
 * 25-agent smallville town (loaded from the template), then the full sweep (`POST
 * /v1/admin/repair`) and the quick one the server runs at start-up, metered as in
 * `hosted_storage_cost.ts` (Redis HTTP requests, commands, Vector requests).
 *
 * Run with `deno run -A --lock=deno.dev.lock tests/bench/startup_repair_cost.ts [worlds=2]`.
 */
import { repairStore } from "../../src/app/memory/repair.ts";
import { createWorldFromTemplate } from "../../src/app/templates/create_from_template.ts";
import { CreateWorldInput } from "../../src/domain/world/world.ts";
import { startMeteredUpstash } from "../_helpers/storage_meter.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { TOWNS } from "../../towns/mod.ts";

const worlds = Number(Deno.args[0] ?? 2);
const meter = await startMeteredUpstash();
try {
  const deps = await makeTestDeps({ storage: await meter.open() });
  for (let i = 0; i < worlds; i++) {
    await createWorldFromTemplate(
      deps,
      CreateWorldInput.parse({ name: `Town ${i}`, template: "smallville" }),
      TOWNS,
    );
  }
  for (const quick of [false, true]) {
    const t0 = performance.now();
    const { result, cost } = await meter.measure(() => repairStore(deps, { quick }));
    const ms = performance.now() - t0;
    console.log(
      `${quick ? "quick" : "full "}: ${result.agents} agents, ${result.swept} swept, ${
        ms.toFixed(0)
      } ms; Redis requests ${cost.redisRequests} (${
        (cost.redisRequests / result.agents).toFixed(2)
      }/agent), commands ${cost.redisCommands}, Vector requests ${cost.vectorRequests} (${
        (cost.vectorRequests / result.agents).toFixed(2)
      }/agent) ${JSON.stringify(cost.byVectorEndpoint)}`,
    );
  }
  await deps[Symbol.asyncDispose]();
} finally {
  await meter.close();
}
