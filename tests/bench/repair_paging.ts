// deno-lint-ignore-file no-console -- a bench script that prints its results
/**
 * @module Time and storage cost of the full repair sweep (`POST /v1/admin/repair`) on a large
 * hosted store: `agents` agents with `perAgent` memories each (about 2 Redis keys per memory
 * with the indexes), on the metered hosted backend (local redis-server behind the Upstash
 * gateway, local vector server). Prints each page the sweep answers, then the totals.
 *
 * Run with `deno run -A --lock=deno.dev.lock tests/bench/repair_paging.ts [agents=20]
 * [perAgent=4000] [limit=20000]` (`limit`: memories per call, the route's default).
 */
import { repairStore } from "../../src/app/memory/repair.ts";
import { createAgent } from "../../src/app/lifecycle/create_agent.ts";
import { createWorld } from "../../src/app/world/world_store.ts";
import { CreateAgentInput } from "../../src/domain/agent/agent.ts";
import { AgentId, MemoryId, WorldId } from "../../src/domain/ids.ts";
import { CreateWorldInput } from "../../src/domain/world/world.ts";
import { startMeteredUpstash } from "../_helpers/storage_meter.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { makeMemories } from "../contracts/_contract_support.ts";

const agents = Number(Deno.args[0] ?? 20);
const perAgent = Number(Deno.args[1] ?? 4000);
const limit = Number(Deno.args[2] ?? 20_000);
const meter = await startMeteredUpstash();
try {
  const deps = await makeTestDeps({ storage: await meter.open() });
  const worldId = WorldId.parse("big");
  await createWorld(
    deps,
    CreateWorldInput.parse({ id: worldId, name: "Big", startTime: "2023-02-13T07:00:00" }),
  );
  const dims = deps.embedder.info.dimensions;
  const t0 = performance.now();
  for (let a = 0; a < agents; a++) {
    const id = `agent-${String(a).padStart(3, "0")}`;
    await createAgent(deps, worldId, CreateAgentInput.parse({ id, name: id, description: id }));
    const scope = { worldId, agentId: AgentId.parse(id) };
    const memories = makeMemories(scope, "m", perAgent);
    for (let i = 0; i < memories.length; i += 500) {
      const batch = memories.slice(i, i + 500);
      await deps.storage.vectors.upsert(
        scope,
        batch.map((m, j) => {
          const vector = new Float32Array(dims);
          vector[(i + j) % dims] = 1;
          return { id: MemoryId.parse(m.id), vector };
        }),
      );
      await deps.storage.memories.append(scope, batch);
    }
  }
  console.log(
    `filled ${agents} agents × ${perAgent} memories in ${(performance.now() - t0).toFixed(0)} ms`,
  );
  let cursor: string | undefined;
  let pages = 0;
  const start = performance.now();
  const { cost } = await meter.measure(async () => {
    do {
      const t = performance.now();
      const report = await repairStore(
        deps,
        { cursor, limit } as Parameters<typeof repairStore>[1],
      );
      pages++;
      console.log(
        `page ${pages}: ${(performance.now() - t).toFixed(0)} ms ${JSON.stringify(report)}`,
      );
      cursor = report.cursor ?? undefined;
    } while (cursor !== undefined);
  });
  console.log(
    `full sweep: ${pages} pages, ${
      (performance.now() - start).toFixed(0)
    } ms; Redis requests ${cost.redisRequests}, commands ${cost.redisCommands}, Vector requests ${cost.vectorRequests} ${
      JSON.stringify(cost.byVectorEndpoint)
    } ${JSON.stringify(cost.byCommand)}`,
  );
  await deps[Symbol.asyncDispose]();
} finally {
  await meter.close();
}
