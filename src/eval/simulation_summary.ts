/**
 * @module The summary of a simulation run, as `deno task simulate --json` prints it: cost per
 * agent-day and the paper's emergent measures (diffusion, density, coordination).
 * @see Generative Agents §6–7; BENCHMARKS.md; README, "Development" (the CLI)
 */
import { z } from "zod";
import { GameTime, hoursBetween, type Usage, UsageCounts } from "../domain/mod.ts";
import { perAgentDay } from "./cost.ts";
import { diffusion, type MemoryTexts, type SeededFact } from "./diffusion.ts";
import { networkDensity, type Person } from "./network_density.ts";
import { attendance, type Gathering, type LocationSample } from "./party_attendance.ts";
import { InterviewMeasures } from "./interview_measures.ts";

/** The budget of issue 6, per agent per game day. */
export const BUDGET = { callsPerAgentDay: 60, tokensPerAgentDay: 60_000 } as const;

const FactSpread = z.object({
  knows: z.array(z.string()).meta({
    description: "Names of the agents who know, originator first",
  }),
  count: z.number().int(),
  share: z.number().min(0).max(1),
  shareBefore: z.number().min(0).max(1),
});

/** The summary of a run; the JSON line `simulate --json` ends with. */
export const SimulationSummary = z
  .object({
    template: z.string(),
    agents: z.number().int(),
    model: z.string().meta({ description: '"offline", or the main model\'s name' }),
    startTime: GameTime,
    endTime: GameTime,
    gameHours: z.number(),
    minutesPerTick: z.number().int(),
    ticks: z.number().int(),
    concurrency: z.number().int(),
    seed: z.number().int().nullable().meta({
      description: "The world's seed: the same seed gives the same summary (but wallSeconds)",
    }),
    events: z.number().int(),
    stepErrors: z.number().int().meta({
      description: "Agent steps that failed (recorded, skipped)",
    }),
    stepErrorExamples: z.array(z.string()).meta({
      description: "Up to five distinct messages of failed steps",
    }),
    modelCalls: z.number().int().meta({ description: "Calls made by the ticks (setup excluded)" }),
    promptTokens: z.number().int(),
    completionTokens: z.number().int(),
    cachedPromptTokens: z.number().int().meta({
      description:
        "Of the prompt tokens, those the provider reported served from its prompt cache (0 offline)",
    }),
    wallSeconds: z.number(),
    callsPerAgentDay: z.number(),
    tokensPerAgentDay: z.number(),
    budget: z.object({
      callsPerAgentDay: z.number(),
      tokensPerAgentDay: z.number(),
      met: z.boolean(),
    }),
    setup: UsageCounts.meta({
      description:
        "Calls made creating the town: none, it is loaded from the template's archive (embedding calls only with another embedder)",
    }),
    byOperation: z.record(z.string(), UsageCounts).meta({
      description: "Calls of the ticks by operation, most calls first",
    }),
    diffusion: z.object({ party: FactSpread, candidacy: FactSpread }),
    networkDensity: z.object({
      before: z.number(),
      after: z.number(),
      afterWithoutSightings: z.number().meta({
        description:
          "After, counting only memories beyond plain observations (chats, reflections, plans): pairs who did more than see each other",
      }),
    }),
    partyAttendance: z
      .object({
        attendees: z.array(z.string()),
        count: z.number().int(),
        informed: z.number().int().meta({ description: "Attendees who knew of the party" }),
        hostPresent: z.boolean(),
      })
      .nullable()
      .meta({ description: "Null when the run did not reach Feb 14, 17:00–19:00" }),
    byInterview: InterviewMeasures.optional().meta({
      description:
        "The same measures by interviewing every agent after the run (POST …/metrics), judged: beside the text-matching numbers above",
    }),
  })
  .meta({ id: "SimulationSummary" });
export type SimulationSummary = z.infer<typeof SimulationSummary>;

/** Everything a run records, for {@linkcode summarizeRun}. */
export interface RunRecord {
  template: string;
  model: string;
  people: readonly Person[];
  startTime: GameTime;
  endTime: GameTime;
  minutesPerTick: number;
  ticks: number;
  concurrency: number;
  seed: number | null;
  events: number;
  stepErrors: number;
  /** A few distinct messages of failed steps. */
  stepErrorExamples: readonly string[];
  wallSeconds: number;
  /** Usage of creating the town, in total and by operation. */
  setup: { total: Usage; byOperation: Record<string, Usage> };
  /** Usage after the run (setup included), in total and by operation. */
  final: { total: Usage; byOperation: Record<string, Usage> };
  facts: { party: SeededFact; candidacy: SeededFact };
  party: Gathering;
  memoriesBefore: MemoryTexts;
  memoriesAfter: MemoryTexts;
  /** The memories after the run without plain observations (sightings). */
  memoriesAfterWithoutSightings: MemoryTexts;
  samples: readonly LocationSample[];
}

/** Builds the summary of a run from what it recorded. */
export function summarizeRun(run: RunRecord): SimulationSummary {
  const hours = hoursBetween(run.startTime, run.endTime);
  const usage = minus(run.final.total, run.setup.total);
  const cost = perAgentDay(usage, run.people.length, hours);
  const nameOf = new Map(run.people.map((p) => [p.id, p.name]));
  const spread = (fact: SeededFact) => {
    const after = diffusion(fact, run.memoriesAfter);
    const originatorFirst = [
      ...after.knows.filter((id) => id === fact.originator),
      ...after.knows.filter((id) => id !== fact.originator),
    ];
    return {
      knows: originatorFirst.map((id) => nameOf.get(id) ?? id),
      count: after.count,
      share: round(after.share, 3),
      shareBefore: round(diffusion(fact, run.memoriesBefore).share, 3),
    };
  };
  const party = spread(run.facts.party);
  const came = attendance(run.samples, run.party, { from: run.startTime, to: run.endTime });
  const informed = new Set(diffusion(run.facts.party, run.memoriesAfter).knows);
  const byOperation = Object.fromEntries(
    Object.entries(run.final.byOperation)
      .map(([op, u]) => [op, minus(u, run.setup.byOperation[op])] as const)
      .filter(([, u]) => u.calls > 0)
      .sort((a, b) => b[1].calls - a[1].calls),
  );
  const callsPerAgentDay = round(cost.calls, 1);
  const tokensPerAgentDay = Math.round(cost.tokens);
  return {
    template: run.template,
    agents: run.people.length,
    model: run.model,
    startTime: run.startTime,
    endTime: run.endTime,
    gameHours: round(hours, 2),
    minutesPerTick: run.minutesPerTick,
    ticks: run.ticks,
    concurrency: run.concurrency,
    seed: run.seed,
    events: run.events,
    stepErrors: run.stepErrors,
    stepErrorExamples: [...run.stepErrorExamples],
    modelCalls: usage.calls,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedPromptTokens: usage.cachedPromptTokens ?? 0,
    wallSeconds: round(run.wallSeconds, 1),
    callsPerAgentDay,
    tokensPerAgentDay,
    budget: {
      ...BUDGET,
      met: cost.calls <= BUDGET.callsPerAgentDay && cost.tokens <= BUDGET.tokensPerAgentDay,
    },
    setup: { ...run.setup.total },
    byOperation,
    diffusion: { party, candidacy: spread(run.facts.candidacy) },
    networkDensity: {
      before: round(networkDensity(run.people, run.memoriesBefore).density, 3),
      after: round(networkDensity(run.people, run.memoriesAfter).density, 3),
      afterWithoutSightings: round(
        networkDensity(run.people, run.memoriesAfterWithoutSightings).density,
        3,
      ),
    },
    partyAttendance: came === null ? null : {
      attendees: came.attendees.map((id) => nameOf.get(id) ?? id),
      count: came.count,
      informed: came.attendees.filter((id) => informed.has(id)).length,
      hostPresent: came.hostPresent,
    },
  };
}

function minus(a: Usage, b: Usage | undefined): Usage {
  return {
    calls: a.calls - (b?.calls ?? 0),
    promptTokens: a.promptTokens - (b?.promptTokens ?? 0),
    completionTokens: a.completionTokens - (b?.completionTokens ?? 0),
    cachedPromptTokens: (a.cachedPromptTokens ?? 0) - (b?.cachedPromptTokens ?? 0),
  };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
