/**
 * @module Running a template town for some game hours and measuring it: the core of
 * `deno task simulate`, apart from flags, wiring and printing.
 * @see Generative Agents §6–7; BENCHMARKS.md; issue 6 items 7 and 8
 */
import type { Deps, UsageTotals } from "../ports/mod.ts";
import {
  addMinutes,
  ConflictError,
  CreateWorldInput,
  type GameTime,
  hoursBetween,
  type Usage,
  type WorldId,
  type WorldTemplate,
} from "../domain/mod.ts";
import { createWorldFromTemplate, offeredTown, type TownCatalog } from "../app/mod.ts";
import { readMemoryTexts } from "./memory_texts.ts";
import type { LocationSample } from "./party_attendance.ts";
import { type RunRecord, type SimulationSummary, summarizeRun } from "./simulation_summary.ts";

/** Distinct step errors a summary quotes. */
const MAX_ERROR_EXAMPLES = 5;

/** What one tick reports, as far as a run needs it (the engine's `TickResult` fits). */
export interface TickOutcome {
  clock: { now: GameTime };
  steps: readonly { agentId: string; location?: string | null; error?: unknown }[];
}

/** Advances a world by `minutes`, stepping its agents (the engine's `tickWorld` fits). */
export type TickFunction = (
  deps: Deps,
  worldId: WorldId,
  options: { minutes: number; concurrency: number; tickId?: string },
) => Promise<TickOutcome>;

/** Where a run is, after each tick. */
export interface SimulationProgress {
  now: GameTime;
  /** Game minutes simulated so far, and in all. */
  minutesDone: number;
  minutesTotal: number;
  ticks: number;
  /** Events in the world's log so far. */
  events: number;
  /** Model calls and tokens of the ticks so far (setup excluded). */
  usage: Usage;
  stepErrors: number;
}

/** Options for {@linkcode simulateTown}. */
export interface SimulateTownOptions {
  template: WorldTemplate;
  /** The towns on offer (the entry's catalog); `template` names one. */
  catalog: TownCatalog;
  /** Game hours to simulate (> 0). */
  hours: number;
  /** Steps one tick; pass the engine's `tickWorld`. */
  tick: TickFunction;
  /** Wall-clock milliseconds, e.g. `performance.now` (the core never reads the clock). */
  wallClock: () => number;
  /**
   * Agents stepped at once per tick.
   * @default 8
   */
  concurrency?: number;
  /**
   * Game minutes per tick; the last tick may be shorter to land on `hours` exactly.
   * @default 10
   */
  minutesPerTick?: number;
  /**
   * The world's id.
   * @default `<template>-seed-<seed>` with a seed, else a new id
   */
  worldId?: string;
  /**
   * The world's `seed` setting: the same seed replays the same run at any concurrency, tick
   * ids included.
   * @default none (runs may differ)
   */
  seed?: number;
  /** Further world settings (e.g. `groupTalk`). @default none */
  settings?: Record<string, unknown>;
  /**
   * The model's name for the summary.
   * @default deps.model.info ("offline" or the main model)
   */
  modelName?: string;
  /** Called after the town is created and after every tick. */
  onProgress?: (progress: SimulationProgress) => void;
}

/** A finished run: its summary and the world it ran in. */
export interface SimulationRun {
  worldId: WorldId;
  summary: SimulationSummary;
}

/**
 * Creates the template's town in a fresh world and ticks it until `hours` of game time have
 * passed, sampling where every agent is after each tick; then measures cost per agent-day,
 * diffusion of the scenario facts and network density (against the memory streams before and
 * after) and party attendance.
 * @throws {RangeError} when `hours` is under a minute; `conflict` when a tick does not move the
 * clock; whatever creating the town or a tick throws (a failed agent step does not throw: it
 * is counted in `stepErrors`).
 */
export async function simulateTown(
  deps: Deps,
  options: SimulateTownOptions,
): Promise<SimulationRun> {
  const minutesPerTick = options.minutesPerTick ?? 10;
  const concurrency = options.concurrency ?? 8;
  const minutesTotal = Math.round(options.hours * 60);
  if (!(minutesTotal >= 1)) {
    throw new RangeError(`Cannot simulate ${options.hours} game hours: use at least one minute`);
  }
  const town = offeredTown(options.catalog, options.template).town();
  const started = options.wallClock();
  const world = await createWorldFromTemplate(
    deps,
    CreateWorldInput.parse({
      id: options.worldId ??
        (options.seed === undefined ? undefined : `${options.template}-seed-${options.seed}`),
      name: town.name,
      template: options.template,
      minutesPerTick,
      settings: {
        ...options.settings,
        ...(options.seed === undefined ? {} : { seed: options.seed }),
      },
    }),
    options.catalog,
  );
  const worldId = world.id as WorldId;
  const people = town.agents.map((a) => ({ id: a.id as string, name: a.name }));
  const ids = people.map((p) => p.id);
  const setup = await deps.storage.usage.totals(worldId);
  const memoriesBefore = await readMemoryTexts(deps, { worldId, agentIds: ids });

  const samples: LocationSample[] = [];
  const events = eventCounter(deps, worldId);
  let now = world.clock.now;
  let ticks = 0;
  let stepErrors = 0;
  const errorExamples = new Set<string>();
  const progress = async () => {
    if (!options.onProgress) return;
    const spent = await deps.storage.usage.totals(worldId);
    options.onProgress({
      now,
      minutesDone: Math.round(hoursBetween(world.clock.now, now) * 60),
      minutesTotal,
      ticks,
      events: await events.count(),
      usage: minus(spent.total, setup.total),
      stepErrors,
    });
  };
  await progress();
  const end = addMinutes(world.clock.now, minutesTotal);
  while (now < end) {
    const minutes = Math.min(minutesPerTick, Math.round(hoursBetween(now, end) * 60));
    const tickId = options.seed === undefined
      ? undefined
      : `tick-${String(ticks + 1).padStart(5, "0")}`;
    const result = await options.tick(deps, worldId, { minutes, concurrency, tickId });
    if (result.clock.now <= now) {
      throw new ConflictError(
        `Cannot simulate world "${worldId}": a tick left its clock at "${result.clock.now}", resume it and run again`,
      );
    }
    now = result.clock.now;
    ticks++;
    for (const step of result.steps) {
      if (step.error !== undefined && step.error !== null) {
        stepErrors++;
        if (errorExamples.size < MAX_ERROR_EXAMPLES) errorExamples.add(String(step.error));
      }
      samples.push({ at: now, agentId: step.agentId, location: step.location ?? null });
    }
    await progress();
  }

  const final = await deps.storage.usage.totals(worldId);
  const record: RunRecord = {
    template: options.template,
    model: options.modelName ??
      (deps.model.info.mode === "offline" ? "offline" : deps.model.info.main),
    people,
    startTime: world.clock.now,
    endTime: now,
    minutesPerTick,
    ticks,
    concurrency,
    seed: options.seed ?? null,
    events: await events.count(),
    stepErrors,
    stepErrorExamples: [...errorExamples],
    wallSeconds: (options.wallClock() - started) / 1000,
    setup: totalsOf(setup),
    final: totalsOf(final),
    facts: {
      party: town.facts.find((f) => f.id === "party")!,
      candidacy: town.facts.find((f) => f.id === "candidacy")!,
    },
    party: town.party,
    memoriesBefore,
    memoriesAfter: await readMemoryTexts(deps, { worldId, agentIds: ids }),
    memoriesAfterWithoutSightings: await readMemoryTexts(deps, { worldId, agentIds: ids }, {
      exclude: ["observation"],
    }),
    samples,
  };
  return { worldId, summary: summarizeRun(record) };
}

function minus(a: Usage, b: Usage): Usage {
  return {
    calls: a.calls - b.calls,
    promptTokens: a.promptTokens - b.promptTokens,
    completionTokens: a.completionTokens - b.completionTokens,
    cachedPromptTokens: (a.cachedPromptTokens ?? 0) - (b.cachedPromptTokens ?? 0),
  };
}

function totalsOf(t: UsageTotals): RunRecord["setup"] {
  return { total: t.total, byOperation: t.byOperation };
}

/** Counts a world's events by reading its log forward from where it last stopped. */
function eventCounter(deps: Pick<Deps, "storage">, worldId: WorldId) {
  let last = 0;
  return {
    async count(): Promise<number> {
      for (;;) {
        const page = await deps.storage.events.read(worldId, last, 1000);
        if (page.length === 0) return last;
        last = page[page.length - 1].seq;
      }
    },
  };
}
