/** @module Private to cli/: `deno task eval believability --world FILE`: a saved world's agents interviewed under the paper's ablations, ranked, rated with TrueSkill. */
import { parseArgs } from "node:util";
import { ndjsonLines } from "../lib/ndjson_lines.ts";
import { trueSkillRatings } from "../lib/trueskill.ts";
import { importWorld } from "../src/app/mod.ts";
import type { WorldId } from "../src/domain/mod.ts";
import { believabilitySvg, believabilityTable, rankBelievability } from "../src/eval/mod.ts";
import { type EvalIo, evalServices, runOnServices } from "./_eval_io.ts";

/** Usage text. */
export const BELIEVABILITY_USAGE =
  `Ranks a world's agents' interview answers across the paper's ablations.

Usage: deno task eval believability --world FILE [--agents id,id] [--svg FILE] [--json FILE]

  --world FILE    a world export (NDJSON from GET /v1/worlds/{world}/export, \`deno task world
                  export\`, \`deno task simulate --save\`, or examples/smallville.ndjson)
  --agents LIST   interview only these agents (ids; default: all)
  --svg FILE      write Figure 8's bar chart (μ with ± σ error bars) as SVG
  --json FILE     also write the full result as JSON
  -h, --help      show this help

Each agent answers the 25-question battery under full, no_reflection,
no_reflection_no_planning and no_memory (nothing is stored); the judge ranks the four answers
to each question; TrueSkill (ts-trueskill) rates the conditions. The world is loaded into
memory; the model and judge come from the environment (offline unless configured).
Calls: 100 agent calls per agent (25 questions × 4 conditions) and one judge call per question.`;

/** Runs the command; its exit code. */
export async function believabilityCommand(
  args: readonly string[],
  env: Record<string, string>,
  io: EvalIo & { openRead?: (path: string) => Promise<ReadableStream<Uint8Array>> },
): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: [...args],
      options: {
        world: { type: "string" },
        agents: { type: "string" },
        svg: { type: "string" },
        json: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (err) {
    io.err(`Cannot rank believability: ${(err as Error).message}\n${BELIEVABILITY_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    io.out(BELIEVABILITY_USAGE);
    return 0;
  }
  if (values.world === undefined) {
    io.err(`Cannot rank believability: --world FILE is required\n${BELIEVABILITY_USAGE}\n`);
    return 2;
  }
  const services = await evalServices(env, io, 256);
  if (services === null) return 1;
  const { deps } = services;
  const world = values.world;
  return await runOnServices(services, io, async () => {
    const open = io.openRead ??
      (async (path: string) => (await Deno.open(path, { read: true })).readable);
    const imported = await importWorld(deps, ndjsonLines(await open(world)));
    io.err(
      `Loaded world "${imported.world.id}": ${imported.counts.agents} agents, ${imported.counts.memories} memories\n`,
    );
    const agents = values.agents?.split(",").map((s) => s.trim()).filter((s) => s !== "");
    const result = await rankBelievability(
      { ...deps, judge: services.app.judge },
      imported.world.id as WorldId,
      {
        agents,
        rate: trueSkillRatings,
        onProgress: ({ agent, done, total }) =>
          io.err(`believability: ${done}/${total} agents (${agent})\n`),
      },
    );
    io.out(believabilityTable(result));
    if (values.svg) {
      await io.writeText(values.svg, believabilitySvg(result));
      io.err(`Wrote the chart to ${values.svg}\n`);
    }
    if (values.json) await io.writeText(values.json, `${JSON.stringify(result, null, 2)}\n`);
  });
}
