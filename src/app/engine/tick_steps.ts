/**
 * @module Stepping a group of a tick's units, however the step was delivered (by a queue
 * message, or in this process). Safe to run twice: a unit's result is claimed once under (tick
 * id, unit), in the commit of its step, and a unit that has one is never stepped again; a step
 * runs only while the world's clock still reads the tick's start (after the close it does not).
 *
 * Cost per step on a hosted store: the step's unit of work reads everything it needs, its unit
 * among it, in one request and commits in one, and that commit counts the unit as reported, so
 * the step whose count reaches the number of units knows the tick is complete without reading
 * anyone's result.
 */
import type { Deps, Storage } from "../../ports/mod.ts";
import { type Clocked, NotFoundError } from "../../domain/mod.ts";
import type { TickClock } from "./tick_clock.ts";
import { withUnitOfWork, type WorkClaim, type WorkLease } from "./unit_of_work.ts";
import {
  forgetOpenTick,
  frameOf,
  type OpenTick,
  stepResults,
  type UnitResult,
} from "./tick_store.ts";
import { reportFailed } from "./tick_close.ts";
import {
  type FullTickSystem,
  type StepOutcome,
  TICK_LEASE_TTL_MS,
  type TickFrame,
} from "./tick_engine.ts";

/** How a group's units are stepped. */
export interface StepUnitOptions<S> {
  // deno-lint-ignore no-explicit-any
  system: FullTickSystem<any, any, S, any>;
  open: OpenTick<Clocked>;
  /** What the system's `load` read with the plan, for `decode`. */
  loaded: unknown;
  /** Whether a failure is reported (the last try) rather than tried again. */
  final: boolean;
  /** How long a step waits for its unit's step lease (0: another delivery has it; skip it). */
  stepWaitMs: number;
}

/** Options for {@linkcode stepGroup}. */
export interface StepGroupOptions<S> extends StepUnitOptions<S> {
  group: number;
  /** Wall-clock ms now; with it, units are no longer stepped past the tick's deadline. */
  deadline?: () => number;
}

/**
 * What stepping a group came to: its units reported (`completes` when the last report of the
 * tick was among them), another delivery is stepping one, the tick closed, or a unit failed
 * with tries left.
 */
export type GroupStepped = { completes: boolean } | "busy" | "closed" | "retry";

/** Steps a group's units one after another (each once, whoever else delivers them). */
export async function stepGroup<S>(
  deps: Pick<Deps, "storage" | "sleep">,
  options: StepGroupOptions<S>,
): Promise<GroupStepped> {
  const { open, system } = options;
  const keys = open.groups[options.group] ?? [];
  const frame = frameOf(open);
  const total = open.groups.flat().length;
  let completes = false;
  for (const key of keys) {
    // Past it, the close records the unit as failed.
    if (options.deadline && options.deadline() >= open.deadlineAt) return { completes: false };
    const stepped = await stepUnit(deps, frame, { ...options, key });
    if (stepped === "busy") return "busy"; // another delivery is stepping it right now
    if (stepped === "closed") {
      forgetOpenTick(deps, open.world.id, open.tickId);
      return "closed";
    }
    if ("error" in stepped && !options.final) return "retry";
    const count = "error" in stepped
      ? (await reportFailed(deps, frame, { key, system, error: stepped.error })).count
      : stepped.count;
    // Exactly one report makes the count reach the number of units.
    completes ||= count === total;
  }
  return { completes };
}

/**
 * What stepping a unit came to: its result is stored (`count`: the units reported, when this
 * step's commit counted it), another delivery is stepping it, the tick closed, or it failed.
 */
type Stepped = { count: number | null } | "busy" | "closed" | { error: unknown };

async function stepUnit<S>(
  deps: Pick<Deps, "storage" | "sleep">,
  frame: TickFrame<Clocked>,
  options: StepUnitOptions<S> & { key: string },
): Promise<Stepped> {
  const { system, key } = options;
  const unitResults = stepResults(deps, frame.world.id, frame.tickId);
  try {
    const shared = system.decode(options.open.shared, options.loaded);
    const needs = system.needs(frame, key, shared);
    const stepLease: WorkLease = {
      key: `step:${frame.world.id}:${key}`,
      ttlMs: TICK_LEASE_TTL_MS,
      waitMs: options.stepWaitMs,
      busy: () => new StepBusy(),
    };
    // The step lease, the step's own leases and documents and its result's claim as one unit
    // of work: the claim is read with them and written (and counted) in the step's commit,
    // first write wins.
    const committed: { claim?: WorkClaim; value?: UnitResult<S> } = {};
    const stepped = await withUnitOfWork(
      deps,
      { ...needs, leases: [stepLease, ...needs.leases], claim: unitResults.claimKey(key) },
      async (work, claim) => {
        const { storage } = work;
        if (claim.stored !== null) return "done" as const;
        if (!await stillOpen(system.clock, frame, storage)) return "closed" as const;
        const unit = await system.unit(frame, key, storage);
        const returned: StepOutcome<S> = await system.step(frame, unit, { shared, work });
        const { carried = null, ...outcome } = returned;
        // A step that failed partway is tried again while tries remain (its writes are keyed, so
        // what it stored already is not stored twice); the last try's failure is its report.
        if (outcome.failed && !options.final) return { error: new StepFailed() };
        committed.value = { outcome, carried } satisfies UnitResult<S>;
        claim.set(committed.value);
        committed.claim = claim;
        return "done" as const;
      },
    );
    if (stepped !== "done") return stepped;
    if (committed.value) unitResults.claimed(key, committed.value);
    return { count: committed.claim?.count ?? null };
  } catch (err) {
    if (err instanceof StepBusy) return "busy";
    // Claimed by another delivery meanwhile: its commit won (and counted), this one wrote nothing.
    return (await unitResults.get(key).catch(() => null)) ? { count: null } : { error: err };
  }
}

/**
 * Whether the world's clock still reads the tick's start, in the step's unit of work (the
 * world is among what a step reads up front): once the tick closed, a late delivery steps
 * nothing, whether or not its result is still stored.
 */
async function stillOpen(
  clock: TickClock<Clocked>,
  frame: TickFrame<Clocked>,
  storage: Storage,
): Promise<boolean> {
  try {
    return (await clock.load({ storage }, frame.world.id)).clock.now === frame.from;
  } catch (err) {
    if (err instanceof NotFoundError) return false; // the world was deleted
    throw err;
  }
}

class StepBusy extends Error {}
class StepFailed extends Error {}
