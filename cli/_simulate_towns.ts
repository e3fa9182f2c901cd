/**
 * @module `deno task simulate --towns N`: N copies of a template town run at once in one store,
 * every tick planned and enqueued on Deno KV queues and stepped by the queue's consumer, as
 * `main.ts` runs ticks. Each town advances on its own (a town waits for its own tick only);
 * the run reports one summary per town and their totals.
 */
import { KvTickQueue } from "../lib/queues/kv_tick_queue.ts";
import type { Deps, TickQueue } from "../src/ports/mod.ts";
import {
  BUDGET,
  perAgentDay,
  simulateTown,
  type SimulateTownOptions,
  type SimulationProgress,
  type SimulationSummary,
  type TickFunction,
} from "../src/eval/mod.ts";
import { ConflictError, LeaseLostError } from "../src/domain/mod.ts";
import { consumeTickMessage } from "../src/app/mod.ts";

/** Options for {@linkcode simulateTowns}: one town's options, and how many towns. */
export interface SimulateTownsOptions extends Omit<SimulateTownOptions, "worldId" | "onProgress"> {
  /** Copies of the town, each its own world. */
  towns: number;
  /**
   * The number of the first town (its world id and seed follow from it), so that several
   * processes can each run a share of one run's towns. @default 1
   */
  firstTown?: number;
  /**
   * Towns whose tick is under way at once, at most; the others wait for a slot.
   * @default TICKS_AT_ONCE
   */
  ticksAtOnce?: number;
  /** Called after every tick of any town, with the run as a whole. */
  onProgress?: (progress: SimulationProgress) => void;
}

/**
 * The embedded store's cache budget for a run of `towns` towns (or one town): 32 MiB a town, at
 * least the default 256. A smallville agent's memory stream and vectors take ~0.55 MB after a
 * game day (25 agents: ~14 MB a town), and every tick uses every agent, so a budget below the
 * whole town's would evict each agent before its next step and reload it from KV every time
 * (BENCHMARKS.md, "Performance (issue 25)", CPU).
 */
export function townsCacheBytes(towns: number | undefined): number {
  return Math.max(256, (towns ?? 1) * 32) * 2 ** 20;
}

/**
 * Towns ticking at once unless told otherwise. Every town's tick has a wall-clock deadline
 * (`TICK_DEADLINE_MS`, 5 minutes): 200 towns in one process all starting their morning tick
 * together (5,000 agents planning their day) shared the process so thinly that most steps
 * missed it. A few towns at a time keep the cores as busy (each tick has 25 agents waiting on
 * the model) and each tick short.
 */
export const TICKS_AT_ONCE = 20;

/** Distinct failed-step messages a run of several towns keeps, as one town's summary does. */
const MAX_ERROR_EXAMPLES = 5;

/** Busy answers (409 with a retry-after) a town's tick is asked again after, at most. */
const BUSY_RETRIES = 30;

/** What a run of several towns adds up to. */
export interface TownsTotals {
  towns: number;
  agents: number;
  gameHours: number;
  /** Agent steps taken (agents × ticks, summed over towns) and those that failed. */
  steps: number;
  stepErrors: number;
  /** Up to five distinct messages of failed steps, over every town (what a long run failed on). */
  stepErrorExamples: string[];
  /**
   * Ticks answered busy (409) or whose planner lost the tick lease, asked again with the same
   * tick id, as a client would.
   */
  busyRetries: number;
  modelCalls: number;
  promptTokens: number;
  completionTokens: number;
  callsPerAgentDay: number;
  tokensPerAgentDay: number;
  budget: { callsPerAgentDay: number; tokensPerAgentDay: number; met: boolean };
  events: number;
  wallSeconds: number;
}

/** A finished run of several towns. */
export interface TownsRun {
  towns: SimulationSummary[];
  total: TownsTotals;
}

/** The world id of the `n`-th town (1-based), e.g. `smallville-town-07`. */
export function townWorldId(options: { template: string; seed?: number }, n: number): string {
  const seed = options.seed === undefined ? "" : `-seed-${options.seed}`;
  return `${options.template}${seed}-town-${String(n).padStart(3, "0")}`;
}

/**
 * Runs `towns` copies of the template town at once, each tick through `options.tick` (which
 * sends its steps through a consumed queue, see {@linkcode consumeTicksFromKv}). With a seed, town n gets seed + n - 1, so the
 * copies differ from one another and each replays.
 * @throws as `simulateTown` (a failed agent step does not throw: it is counted).
 */
export async function simulateTowns(
  deps: Deps,
  options: SimulateTownsOptions,
): Promise<TownsRun> {
  const started = options.wallClock();
  const retried = { busy: 0 };
  const retrying = retryingBusy(deps, options.tick, retried);
  const ticking = new Slots(options.ticksAtOnce ?? TICKS_AT_ONCE);
  const tick: TickFunction = (d, worldId, o) => ticking.run(() => retrying(d, worldId, o));
  const latest: (SimulationProgress | undefined)[] = new Array(options.towns);
  const report = () => {
    if (!options.onProgress || latest.some((p) => p === undefined)) return;
    options.onProgress(combined(latest as SimulationProgress[]));
  };
  const towns = await Promise.all(
    Array.from({ length: options.towns }, async (_, i) => {
      const n = (options.firstTown ?? 1) + i;
      const seed = options.seed === undefined ? undefined : options.seed + n - 1;
      const { summary } = await simulateTown(deps, {
        ...options,
        seed,
        tick,
        worldId: townWorldId(options, n),
        onProgress: (p) => {
          latest[i] = p;
          report();
        },
      });
      return summary;
    }),
  );
  const wallSeconds = (options.wallClock() - started) / 1000;
  return { towns, total: { ...totalsOf(towns, wallSeconds), busyRetries: retried.busy } };
}

/** One run out of the runs of several processes, each over a share of the towns. */
export function mergeRuns(runs: readonly TownsRun[], wallSeconds: number): TownsRun {
  const towns = runs.flatMap((r) => r.towns);
  const busyRetries = runs.reduce((n, r) => n + r.total.busyRetries, 0);
  return { towns, total: { ...totalsOf(towns, wallSeconds), busyRetries } };
}

/**
 * The tick function, asking again with the same tick id (so a tick runs once) while the world
 * answers busy (409 with a retry-after: the last tick's closer still holds the world's lease) or
 * the planner lost the tick lease (its renewal starved on an overloaded machine; the plan, if
 * stored, is found again by its id), as a game server calling `POST …/tick` would retry.
 */
function retryingBusy(
  deps: Deps,
  tick: TickFunction,
  retried: { busy: number },
): TickFunction {
  return async (d, worldId, options) => {
    const tickId = options.tickId ?? deps.ids.next("t");
    for (let attempt = 1;; attempt++) {
      try {
        return await tick(d, worldId, { ...options, tickId });
      } catch (err) {
        const after = retryAfterSeconds(err);
        if (after === null || attempt > BUSY_RETRIES) throw err;
        retried.busy++;
        await deps.sleep(after * 1_000);
      }
    }
  };
}

function retryAfterSeconds(err: unknown): number | null {
  if (err instanceof LeaseLostError) return 1;
  if (!(err instanceof ConflictError)) return null;
  const after = (err.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof after === "number" ? after : null;
}

/** The run as a whole: the slowest town's clock, everything else summed. */
function combined(towns: readonly SimulationProgress[]): SimulationProgress {
  const slowest = towns.reduce((a, b) => (b.minutesDone < a.minutesDone ? b : a));
  const sum = (f: (p: SimulationProgress) => number) => towns.reduce((n, p) => n + f(p), 0);
  return {
    now: slowest.now,
    minutesDone: slowest.minutesDone,
    minutesTotal: slowest.minutesTotal,
    ticks: sum((p) => p.ticks),
    events: sum((p) => p.events),
    usage: {
      calls: sum((p) => p.usage.calls),
      promptTokens: sum((p) => p.usage.promptTokens),
      completionTokens: sum((p) => p.usage.completionTokens),
    },
    stepErrors: sum((p) => p.stepErrors),
  };
}

function totalsOf(
  towns: readonly SimulationSummary[],
  wallSeconds: number,
): Omit<TownsTotals, "busyRetries"> {
  const sum = (f: (s: SimulationSummary) => number) => towns.reduce((n, s) => n + f(s), 0);
  const agents = sum((s) => s.agents);
  const gameHours = towns[0]?.gameHours ?? 0;
  const usage = {
    calls: sum((s) => s.modelCalls),
    promptTokens: sum((s) => s.promptTokens),
    completionTokens: sum((s) => s.completionTokens),
  };
  const cost = perAgentDay(usage, agents, gameHours);
  return {
    towns: towns.length,
    agents,
    gameHours,
    steps: sum((s) => s.agents * s.ticks),
    stepErrors: sum((s) => s.stepErrors),
    stepErrorExamples: [...new Set(towns.flatMap((s) => s.stepErrorExamples))].slice(
      0,
      MAX_ERROR_EXAMPLES,
    ),
    modelCalls: usage.calls,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    callsPerAgentDay: Math.round(cost.calls * 10) / 10,
    tokensPerAgentDay: Math.round(cost.tokens),
    budget: {
      ...BUDGET,
      met: cost.calls <= BUDGET.callsPerAgentDay && cost.tokens <= BUDGET.tokensPerAgentDay,
    },
    events: sum((s) => s.events),
    wallSeconds: Math.round(wallSeconds * 10) / 10,
  };
}

/** Tick messages one consumer handles at once unless told otherwise. */
export const CONSUMER_AT_ONCE = 100;

/**
 * A tick queue on a fresh in-memory Deno KV, consumed in this process with `deps`, as
 * `main.ts` does with its KV file, handling at most `atOnce` messages at a time (as a platform
 * caps an isolate's concurrent invocations; more only queue up CPU work and stretch every held
 * lease). Dispose of it to stop consuming: it waits for the messages being handled, then closes
 * its KV, so the store can close after it.
 */
export async function consumeTicksFromKv(
  deps: Deps,
  options: { atOnce?: number } = {},
): Promise<AsyncDisposable & { queue: TickQueue }> {
  const kv = await Deno.openKv(":memory:");
  const queue = new KvTickQueue(kv);
  const slots = new Slots(options.atOnce ?? CONSUMER_AT_ONCE);
  const listening = queue.listen((m) => slots.run(() => consumeTickMessage(deps, m, queue)));
  return {
    queue,
    async [Symbol.asyncDispose]() {
      // The messages being handled finish first: they may still send, and the KV must be open.
      await queue.stop();
      kv.close();
      await listening;
    },
  };
}

/** At most `size` tasks at once; the others wait in arrival order. */
class Slots {
  readonly #waiting: (() => void)[] = [];
  #free: number;

  constructor(size: number) {
    this.#free = size;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}
