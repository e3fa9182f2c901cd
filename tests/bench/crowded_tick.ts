/**
 * @module Issue 27, item 2: tick time and stored plan size of crowded worlds, on both backends.
 * A world of `--agents` agents of which `--crowd` share one place from the start (the others ten
 * to a house, see `tests/_helpers/crowded_world.ts`) is ticked `--ticks` times in process with
 * the offline model; each tick's wall time, the JSON size of the plan it stored, and its failed
 * steps are printed. The hosted backend runs against a local redis-server behind the Upstash
 * stand-ins, as the tests do. Run:
 * `deno run -A --lock=deno.dev.lock tests/bench/crowded_tick.ts [--agents 500] [--crowd 100]
 * [--ticks 3] [--backend embedded|upstash|both]`; `--json` prints one JSON line per backend.
 * Numbers in BENCHMARKS.md ("Crowded worlds").
 */
import { parseArgs } from "node:util";
import { startBackends } from "../_helpers/backends.ts";
import { createCrowdedWorld, measuringPlans } from "../_helpers/crowded_world.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { tickWorld } from "../../src/app/simulation/tick_world.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    agents: { type: "string", default: "500" },
    crowd: { type: "string", default: "100" },
    ticks: { type: "string", default: "3" },
    backend: { type: "string", default: "both" },
    json: { type: "boolean", default: false },
  },
});
const agents = Number(values.agents);
const crowd = Math.min(Number(values.crowd), agents);
const ticks = Number(values.ticks);

/** One tick as measured: its time, its plan's size and failed steps, or why it was refused. */
interface Measured {
  ms: number;
  planBytes: number;
  failed?: number;
  /** The failed steps' errors, each once with how many steps had it. */
  errors?: Record<string, number>;
  refused?: string;
}

function countErrors(errors: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const error of errors) counts[error] = (counts[error] ?? 0) + 1;
  return counts;
}

const { backends, close } = await startBackends();
try {
  for (const backend of backends) {
    if (values.backend !== "both" && values.backend !== backend.name) continue;
    const { storage, planBytes } = measuringPlans(await backend.open());
    await using deps = await makeTestDeps({ storage });
    const setupStart = performance.now();
    const id = await createCrowdedWorld(deps, "crowded", { agents, crowd });
    const setupMs = performance.now() - setupStart;
    const measured: Measured[] = [];
    for (let t = 0; t < ticks; t++) {
      const start = performance.now();
      const planned = planBytes.length;
      const tick: Pick<Measured, "failed" | "errors" | "refused"> = await tickWorld(deps, id, {
        tickId: `crowded-${t}`,
      }).then(
        (result) => {
          const errors = result.steps.flatMap((s) => s.error === undefined ? [] : [s.error]);
          return { failed: errors.length, errors: countErrors(errors) };
        },
        (err: Error) => ({ refused: err.message }),
      );
      const ms = Math.round(performance.now() - start);
      measured.push({ ms, planBytes: planBytes.length > planned ? planBytes.at(-1)! : 0, ...tick });
      if (tick.refused !== undefined) break; // the world does not tick on
    }
    const line = { backend: backend.name, agents, crowd, setupMs: Math.round(setupMs), measured };
    // deno-lint-ignore no-console
    console.log(
      values.json ? JSON.stringify(line) : [
        `${backend.name}: ${agents} agents, ${crowd} in one place (setup ${line.setupMs} ms)`,
        ...measured.map((m, i) =>
          `  tick ${i + 1}: ${m.ms} ms, ` +
          (m.refused
            ? `refused: ${m.refused}`
            : `plan ${m.planBytes} bytes, ${m.failed} failed ${JSON.stringify(m.errors)}`)
        ),
      ].join("\n"),
    );
  }
} finally {
  await close();
}
