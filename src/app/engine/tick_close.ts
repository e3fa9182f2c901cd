/**
 * @module Closing a tick, once, under the world's tick lease: when every unit reported
 * or its deadline passed (stragglers recorded as failed), `finish` runs and the clock moves (one
 * unit of work fenced by the lease), the events are appended, the marker is done and the open
 * tick removed. Also the failure report of a unit, counted with the step results like a step's.
 */
import type { Deps, NewEvent } from "../../ports/mod.ts";
import {
  addUsage,
  type Clocked,
  type ClockState,
  ConflictError,
  emptyUsage,
  LeaseLostError,
  SimulacraError,
  type WorldId,
} from "../../domain/mod.ts";
import { withLease } from "./lease.ts";
import { withUnitOfWork } from "./unit_of_work.ts";
import { tellTickClosed } from "./_tick_wait.ts";
import {
  type Closing,
  forgetOpenTick,
  frameOf,
  markerScope,
  type OpenTick,
  openTickKey,
  type RunnerContext,
  stepResults,
  type UnitResult,
} from "./tick_store.ts";
import {
  errorFields,
  type FullTickSystem,
  type PhaseOutcome,
  type StepOutcome,
  TICK_LEASE_TTL_MS,
  type TickFrame,
  type TickMarker,
  type TickRecord,
} from "./tick_engine.ts";

/** What a close works with: the system and runner's clock, and the tick lease once held. */
export interface CloseContext<S> extends RunnerContext<S> {
  /** Wall-clock ms now, for the tick's deadline. */
  now: () => number;
}

/**
 * Closes the tick holding the world's tick lease, waiting at most `waitMs` for it. A lease held
 * by someone else is not an error: its holder closes this tick (a closer, or a planner that
 * finds it past its deadline), or the tick's periodic check tries again.
 * @returns `busy` when the lease stayed held.
 */
export async function closeLocked<S>(
  deps: Pick<Deps, "storage" | "sleep">,
  open: OpenTick<Clocked>,
  context: Omit<CloseContext<S>, "held"> & { waitMs: number },
): Promise<Closing<S> | "busy"> {
  try {
    return await withLease(deps, {
      key: `tick:${open.world.id}`,
      ttlMs: TICK_LEASE_TTL_MS,
      waitMs: context.waitMs,
      busy: () => new LeaseBusy(),
    }, (held) => closeTick<S>(deps, open, { ...context, held }));
  } catch (err) {
    if (err instanceof LeaseBusy) return "busy";
    throw err;
  }
}

class LeaseBusy extends Error {}

/**
 * Closes an open tick when every unit reported or its deadline passed (stragglers recorded as
 * failed). Call it holding the world's tick lease. The tick's marker, read with the results,
 * tells whether it is still open: a plan kept in memory outlives its tick.
 */
export async function closeTick<S>(
  deps: Pick<Deps, "storage" | "sleep">,
  open: OpenTick<Clocked>,
  context: CloseContext<S>,
): Promise<Closing<S>> {
  const { system } = context;
  const { tickId } = open;
  const worldId = open.world.id;
  const markerAt = markerScope(worldId);
  const unitResults = stepResults(deps, worldId, tickId);
  const keys = open.groups.flat();
  // One round trip on a hosted store: reads started together share one pipelined request.
  const [marker, prepared, ...stored] = await Promise.all([
    deps.storage.idempotency.get<TickMarker<S>>(markerAt, tickId),
    open.prepared ?? unitResults.get<PhaseOutcome>("_prepare"),
    ...keys.map((k) => unitResults.get<UnitResult<S>>(k)),
  ]) as [TickMarker<S> | null, PhaseOutcome | null, ...(UnitResult<S> | null)[]];
  if (marker?.status !== "running") {
    forgetOpenTick(deps, worldId, tickId);
    return { closed: true, result: marker?.status === "done" ? marker.result : null };
  }
  const late = context.now() >= open.deadlineAt;
  if (!late && stored.some((r) => r === null)) return { closed: false };
  const frame = frameOf(open);
  const results = await Promise.all(
    stored.map(async (r, i) =>
      r ?? (await reportFailed<S>(deps, frame, {
        key: keys[i],
        system,
        error: new SimulacraError(
          "internal_error",
          `The step of "${keys[i]}" did not report before the tick's deadline`,
        ),
      })).result
    ),
  );
  const outcomes = results.map((r) => r.outcome);
  const moved = await finishAndMove(deps, open, { ...context, results });
  if (moved === null) {
    // A closer before this one moved the clock and died before it finished: never stuck.
    const failed: TickMarker<S> = {
      status: "failed",
      retryable: false,
      code: "conflict",
      message: `Tick "${tickId}" stopped after its clock moved and its result was lost`,
    };
    await deps.storage.idempotency.put<TickMarker<S>>(markerAt, tickId, { value: failed });
    await unitResults.remove(keys);
    await deps.storage.documents.delete(openTickKey(worldId));
    forgetOpenTick(deps, worldId, tickId);
    tellTickClosed(deps, failed, { worldId, tickId });
    return { closed: true, result: null };
  }
  const { finished, clock } = moved;
  const beforeSteps = prepared ?? { events: [], usage: emptyUsage() };
  const usage = addUsage(beforeSteps.usage, ...outcomes.map((o) => o.usage), finished.usage);
  const tickEvent: NewEvent = {
    type: "tick",
    at: open.to,
    from: open.from,
    minutes: open.minutes,
    steps: outcomes.length,
    failed: outcomes.filter((o) => o.failed).length,
    calls: usage.calls,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
  };
  const events = [tickEvent, ...beforeSteps.events, ...outcomes.flatMap((o) => o.events)]
    .concat(finished.events).map((e) => ({ ...e, tickId }));
  const logged = await deps.storage.events.append(worldId as WorldId, events);
  const result: TickRecord<S> = {
    tickId,
    from: open.from,
    minutes: open.minutes,
    clock,
    steps: outcomes.map((o) => o.summary),
    usage,
    events: logged.length,
  };
  await deps.storage.idempotency.put<TickMarker<S>>(markerAt, tickId, {
    value: { status: "done", result },
  });
  // Only once the result is stored: a close cut short before finds the results again.
  await unitResults.remove(keys);
  await deps.storage.documents.delete(openTickKey(worldId));
  forgetOpenTick(deps, worldId, tickId);
  // Once the tick is all closed (a next tick finds no open one): tells waiters here at once.
  tellTickClosed(deps, { status: "done", result }, { worldId, tickId });
  return { closed: true, result };
}

/** Tries of the close's unit of work when a document it writes changed meanwhile. */
const CLOSE_TRIES = 3;

/**
 * `finish` and the clock's move as one unit of work under the tick lease: what they read in one
 * round trip, what they write in one commit; tried again when a document changed meanwhile (a
 * `PATCH` of the world, say). Null when the clock no longer reads the tick's start.
 */
async function finishAndMove<S>(
  deps: Pick<Deps, "storage" | "sleep">,
  open: OpenTick<Clocked>,
  context: CloseContext<S> & { results: readonly UnitResult<S>[] },
): Promise<{ finished: PhaseOutcome; clock: ClockState } | null> {
  const { system, held, results } = context;
  const frame = frameOf(open);
  const worldId = open.world.id;
  const needs = { leases: [], held: [held.lease], documents: system.closeNeeds(frame) };
  for (let attempt = 1;; attempt++) {
    try {
      return await withUnitOfWork(deps, needs, async ({ storage }) => {
        const world = await system.clock.load({ storage }, worldId);
        if (world.clock.now !== open.from) return null;
        const shared = system.merge(
          system.decode(open.shared),
          results.map((r) => r.carried).filter((c) => c !== null),
        );
        let finished: PhaseOutcome;
        try {
          finished = await system.finish(frame, results.map((r) => r.outcome), {
            shared,
            storage,
          });
        } catch (err) {
          finished = {
            events: [{ type: "tick_error", at: frame.to, phase: "finish", ...errorFields(err) }],
            usage: emptyUsage(),
          };
        }
        const clock = await system.clock.advance({ storage }, worldId, {
          from: open.from,
          to: open.to,
          fence: held.lease,
        });
        return { finished, clock };
      });
    } catch (err) {
      const changed = err instanceof ConflictError && !(err instanceof LeaseLostError);
      if (!changed || attempt >= CLOSE_TRIES) throw err;
    }
  }
}

/**
 * Records a unit's step as failed, unless it has a result already: its result is claimed and
 * counted in one commit, as a step's is, so each unit counts once whoever reports it.
 * @returns the unit's result (the one stored first) and the count when this report made it.
 */
export async function reportFailed<S>(
  deps: Pick<Deps, "storage">,
  frame: TickFrame<Clocked>,
  // deno-lint-ignore no-explicit-any
  options: { key: string; system: FullTickSystem<any, any, S, any>; error: unknown },
): Promise<{ result: UnitResult<S>; count: number | null }> {
  const { system, key } = options;
  let unit: unknown = null;
  try {
    unit = await system.unit(frame, key);
  } catch { /* gone: reported by key below */ }
  const outcome: StepOutcome<S> = unit
    ? { ...system.failed(frame, unit, options.error), failed: true }
    : {
      summary: { unitKey: key } as S,
      events: [{ type: "agent_error", at: frame.to, agentId: key, ...errorFields(options.error) }],
      usage: emptyUsage(),
      failed: true,
    };
  const result: UnitResult<S> = { outcome, carried: null };
  const unitResults = stepResults(deps, frame.world.id, frame.tickId);
  try {
    const { count } = await deps.storage.units.commit({
      documents: [],
      fences: [],
      release: [],
      claim: { ...unitResults.claimKey(key), value: result },
    });
    return { result, count };
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    // Reported (or stepped) by another delivery first: its result stands, and it counted.
    const stored = await unitResults.get<UnitResult<S>>(key);
    if (stored === null) throw err;
    return { result: stored, count: null };
  }
}
