/**
 * @module Benchmarks the engine's overhead per world tick (issue #6, 8c): `tickWorld()` on the
 * embedded backend in process with the offline model, which answers at once, so the time is the
 * engine and the cognition code around the model calls (reads, writes, retrieval, locks, events),
 * not model latency. Towns of 5 and 25 agents in 10 areas from 08:00 (each town first ticks
 * through an hour of day plans as warm-up), then each measured iteration is one 10-minute tick;
 * and 25 agents at night, when everyone sleeps and no model is called: the engine alone.
 *
 * Run with `deno bench -A tests/bench/tick_bench.ts`. With `BENCH_TICKS=1` it also prints the
 * model calls per agent per tick of the measured ticks.
 */
import { CreateAgentInput } from "../../src/domain/agent/agent.ts";
import { createAgent } from "../../src/app/lifecycle/create_agent.ts";
import type { Deps } from "../../src/ports/deps.ts";
import type { WorldId } from "../../src/domain/ids.ts";
import { Environment } from "../../src/domain/world/environment.ts";
import { replaceEnvironment } from "../../src/app/world/environment_store.ts";
import { tickWorld } from "../../src/app/simulation/tick_world.ts";
import { CreateWorldInput } from "../../src/domain/world/world.ts";
import { createWorld } from "../../src/app/world/world_store.ts";
import { countingModel, makeTestDeps } from "../_helpers/test_deps.ts";

const HOUSES = 6;
const PLACES = ["Hobbs Cafe", "Johnson Park", "Oak Hill College", "Harvey Oak Supply Store"];
const JOBS = ["barista", "student", "professor", "shopkeeper"];

function environment(): Environment {
  const place = (name: string, rooms: string[][]) => ({
    name,
    common: !name.startsWith("House"),
    subAreas: rooms.map(([room, ...objects]) => ({
      name: room,
      objects: objects.map((o) => ({ name: o })),
    })),
  });
  return Environment.parse({
    areas: [
      ...Array.from({ length: HOUSES }, (_, i) =>
        place(`House ${i + 1}`, [
          ["bedroom", "bed", "desk"],
          ["kitchen", "stove", "fridge", "table"],
        ])),
      place("Hobbs Cafe", [["cafe", "counter", "coffee machine", "table"], ["kitchen", "stove"]]),
      place("Johnson Park", [["lawn", "bench", "fountain"]]),
      place("Oak Hill College", [["classroom", "desk", "blackboard"], ["library", "bookshelf"]]),
      place("Harvey Oak Supply Store", [["shop", "shelf", "counter"]]),
    ],
  });
}

async function town(
  agents: number,
  startTime = "2023-02-13T07:00:00",
): Promise<{ deps: Deps; id: WorldId; calls: () => number }> {
  const { model, kinds } = countingModel();
  const deps = await makeTestDeps({ model });
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({
      id: `bench${agents}`,
      name: "Bench",
      startTime,
    }),
  );
  const id = world.id as WorldId;
  await replaceEnvironment(deps, id, environment());
  for (let i = 0; i < agents; i++) {
    const job = JOBS[i % JOBS.length];
    await createAgent(
      deps,
      id,
      CreateAgentInput.parse({
        id: `a${i}`,
        name: `Resident ${i}`,
        home: `House ${(i % HOUSES) + 1}`,
        workplace: PLACES[i % PLACES.length],
        description: `Resident ${i} is a ${job}; Resident ${i} likes the town's cafe`,
      }),
    );
  }
  // Warm-up: the day plans and first decompositions (an hour of ticks).
  for (let i = 0; i < 6; i++) await tickWorld(deps, id);
  return { deps, id, calls: () => kinds.length };
}

const five = await town(5);
const twentyFive = await town(25);
const night = await town(25, "2023-02-13T01:00:00");
const report = Deno.env.get("BENCH_TICKS") === "1";

// At night everyone sleeps: no model call, so the time is the engine's own bookkeeping.
Deno.bench({
  name: "tickWorld() 25 sleeping agents (engine only, no model call)",
  group: "tick",
  n: 30,
  warmup: 2,
  async fn() {
    await tickWorld(night.deps, night.id);
  },
});

for (const [agents, t] of [[5, five], [25, twentyFive]] as const) {
  let first = -1;
  let ticks = 0;
  Deno.bench({
    name: `tickWorld() ${agents} agents, 10-minute tick`,
    group: "tick",
    n: 30,
    warmup: 2,
    async fn() {
      if (first < 0) first = t.calls();
      await tickWorld(t.deps, t.id);
      ticks++;
      if (report && ticks === 32) {
        // deno-lint-ignore no-console
        console.log(
          `${agents} agents: ${
            ((t.calls() - first) / (agents * ticks)).toFixed(2)
          } model calls per agent per tick`,
        );
      }
    },
  });
}
