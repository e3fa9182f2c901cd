/**
 * @module The generic tick loop: one tick of one world at a time, idempotent by tick id, units
 * stepped concurrently with failures isolated, the clock moved by compare-and-set, events
 * appended together. What a unit does lives in a {@linkcode TickSystem} (AI Town's
 * engine/game split).
 */
import type { Lease } from "../ports/lock.ts";
import type { Deps } from "../deps.ts";
import { ConflictError, type ErrorCode, SimulacraError } from "../errors.ts";
import type { WorldId } from "../ids.ts";
import { addUsage, emptyUsage, type Usage } from "../model/usage.ts";
import type { NewEvent } from "../ports/event_log.ts";
import { addMinutes, type GameTime, inGameYears, MAX_GAME_YEAR } from "../time/game_time.ts";
import { type Clocked, type ClockState, type TickClock, TickMinutes } from "./tick_clock.ts";
import { withLease } from "./lease.ts";
import { mapBounded } from "./pool.ts";
import type { Storage } from "../ports/storage.ts";
import { withUnitOfWork, type WorkLease, type WorkNeeds, type WorkUnit } from "./unit_of_work.ts";

/** What one tick is about: the world as read under the tick lock, and the span of game time. */
export interface TickFrame<W extends Clocked = Clocked> {
  world: W;
  tickId: string;
  /** The clock before the tick. */
  from: GameTime;
  /** The clock after the tick; units act at this time. */
  to: GameTime;
  minutes: number;
  /** Units stepped at once; a phase that runs work of several units bounds it by this too. */
  concurrency: number;
}

/** Events and usage of a phase that runs once per tick. */
export interface PhaseOutcome {
  events: NewEvent[];
  usage: Usage;
}

/** What stepping one unit produced. */
export interface StepOutcome<S> extends PhaseOutcome {
  summary: S;
  /** Set when the step failed (fully or partly); counted in the `tick` event. */
  failed?: boolean;
}

/**
 * The behaviour a tick runs. The engine calls `units`, then `prepare` once, then `step` for
 * every unit (at most `concurrency` at once, each under its own lease), then `finish` once.
 * A `step` that throws becomes `failed(…)` for that unit only.
 */
export interface TickSystem<U, P, S, W extends Clocked = Clocked> {
  /** Reads and moves the clock of the world being ticked. */
  clock: TickClock<W>;
  /** The units to step, in a stable order. */
  units(frame: TickFrame<W>): Promise<U[]>;
  /** The unit's id, for its lease and failure reports. */
  unitKey(unit: U): string;
  /** Work done once for all units before the steps (e.g. batched model calls). */
  prepare(frame: TickFrame<W>, units: readonly U[]): Promise<PhaseOutcome & { shared: P }>;
  /**
   * Leases (besides the step's own) and documents the step of unit `key` needs: taken and read
   * with the step's lease in one round trip; the step runs in that unit of work.
   */
  needs?(frame: TickFrame<W>, key: string, shared: P): WorkNeeds;
  /** Steps a unit (and `finish`, the tick), in its unit of work when there is one. */
  step(frame: TickFrame<W>, unit: U, shared: P, work?: WorkUnit): Promise<StepOutcome<S>>;
  /** The outcome of a unit whose step threw (or whose lease stayed busy). */
  failed(frame: TickFrame<W>, unit: U, error: unknown): StepOutcome<S>;
  /** Work done once after every step (e.g. batched writes); it must not throw for one unit. */
  finish(
    frame: TickFrame<W>,
    shared: P,
    outcomes: readonly StepOutcome<S>[],
    storage?: Storage,
  ): Promise<PhaseOutcome>;
}

/** The stored and returned result of one tick. */
export interface TickRecord<S> {
  tickId: string;
  /** The game time before the tick. */
  from: GameTime;
  minutes: number;
  /** The clock after the tick. */
  clock: ClockState;
  steps: S[];
  usage: Usage;
  /** How many events the tick appended to the world's log. */
  events: number;
}

/** Options for {@linkcode runTick}. */
export interface RunTickOptions {
  /** Game minutes to advance (1–1440). @default the world's minutesPerTick */
  minutes?: number;
  /** Repeating an id returns the first result without advancing again. @default a new id */
  tickId?: string;
  /** Units stepped at once. @default 8 */
  concurrency?: number;
  /** How long to wait while another tick of the world runs. @default 30000 */
  waitMs?: number;
  /**
   * How long the world's tick lease (and each unit's step lease) outlives a holder that died;
   * live holders renew them every third of this. @default 15000
   */
  lockTtlMs?: number;
  /** How long to wait for a unit's own lease. @default 10000 */
  stepWaitMs?: number;
  /**
   * A tick from the scheduler: refused (`conflict`) when the world is paused or in manual mode.
   * A requested tick runs either way: pausing stops the scheduler, not the caller.
   */
  scheduled?: boolean;
}

/** A tick id's stored state: claimed and running, failed, or done with its result. */
export type TickMarker<S> =
  | { status: "running"; from: GameTime }
  | { status: "failed"; retryable: boolean; code: ErrorCode; message: string }
  | { status: "done"; result: TickRecord<S> };

const DEFAULT_CONCURRENCY = 8;
const MAX_CONCURRENCY = 64;

/**
 * Runs one tick of a world. Ticks of one world never overlap: each holds the world's tick lease,
 * and waits up to `waitMs` for it. Under it the tick id is claimed with a "running" marker, the
 * units are stepped at the time the tick ends, the clock moves by compare-and-set from the time
 * read, the tick's events are appended in one batch, and the result replaces the marker. So the
 * same id sent again (or concurrently) advances the clock once and answers the first result,
 * and distinct ids advance one after another. A failure before the clock moved stores nothing
 * but a retryable failure (the same id may be sent again); a failed unit is reported in its
 * summary and events and does not stop the others.
 *
 * @throws `invalid_request` (minutes or concurrency out of range), `world_not_found`,
 * `conflict` (a scheduled tick of a paused or manual world, another tick holds the world longer than `waitMs`, or a tick id whose
 * first run stopped midway after the clock moved), `store_unavailable`.
 */
export async function runTick<U, P, S, W extends Clocked>(
  deps: Pick<Deps, "ids" | "storage" | "sleep">,
  worldId: WorldId,
  system: TickSystem<U, P, S, W>,
  options: RunTickOptions = {},
): Promise<TickRecord<S>> {
  const concurrency = validateTickOptions(worldId, options);
  const tickId = options.tickId ?? deps.ids.next("t");
  const idem = deps.storage.idempotency;
  const scope = `tick:${worldId}`;

  // A finished tick answers at once, without waiting for the world's lease.
  const seen = await idem.get<TickMarker<S>>(scope, tickId);
  if (seen?.status === "done") return seen.result;
  if (seen?.status === "failed" && !seen.retryable) throw markerError(seen);
  assertCanAdvance(await system.clock.load(deps, worldId), options);

  return await withLease(deps, `tick:${worldId}`, async (held) => {
    const marker = await idem.get<TickMarker<S>>(scope, tickId);
    if (marker?.status === "done") return marker.result;
    if (marker?.status === "failed" && !marker.retryable) throw markerError(marker);
    const world = await system.clock.load(deps, worldId);
    if (marker?.status === "running" && marker.from !== world.clock.now) {
      // Its first run stopped after moving the clock (the process ended): the result is lost.
      const failed: TickMarker<S> = {
        status: "failed",
        retryable: false,
        code: "conflict",
        message:
          `Cannot answer tick "${tickId}" of world "${worldId}": its first run stopped after the clock moved and its result was lost: send a new tick id`,
      };
      await idem.put(scope, tickId, failed);
      throw markerError(failed);
    }
    assertSchedulable(world, options);
    const running: TickMarker<S> = { status: "running", from: world.clock.now };
    if (marker === null) {
      // Under the lease nobody else claims; the claim still guards a lease that expired.
      const claim = await idem.claim(scope, tickId, running);
      if (!claim.created) throw busy(tickId, worldId);
    } else await idem.put(scope, tickId, running);
    let result: TickRecord<S>;
    try {
      result = await tickLocked(deps, world, tickId, system, {
        minutes: options.minutes ?? world.clock.minutesPerTick,
        concurrency,
        lease: held.lease,
        lockTtlMs: options.lockTtlMs ?? TICK_LEASE_TTL_MS,
        stepWaitMs: options.stepWaitMs ?? 10_000,
      });
    } catch (err) {
      if (err instanceof ClockMoved) throw err.cause;
      // The clock did not move: the same id may run again.
      const e = err instanceof SimulacraError
        ? err
        : new SimulacraError("internal_error", "Cannot run the tick: unexpected error");
      await idem.put<TickMarker<S>>(scope, tickId, {
        status: "failed",
        retryable: true,
        code: e.code,
        message: e.message,
      }).catch(() => {});
      throw err;
    }
    // Should this write fail, the marker still says "running" from the old time, and a repeat
    // of the id sees that the clock moved: it answers 409 and never runs the tick twice.
    await idem.put<TickMarker<S>>(scope, tickId, { status: "done", result });
    return result;
  }, {
    ttlMs: options.lockTtlMs ?? TICK_LEASE_TTL_MS,
    waitMs: options.waitMs ?? 30_000,
    busy: () => busy(tickId, worldId),
  });
}

/**
 * Checks a tick's options before anything is read. @returns the concurrency.
 * @throws `invalid_request` (minutes or concurrency out of range).
 */
export function validateTickOptions(
  worldId: string,
  options: Pick<RunTickOptions, "minutes" | "concurrency">,
): number {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot tick with a concurrency of ${concurrency}: use a whole number from 1 to ${MAX_CONCURRENCY}`,
    );
  }
  if (options.minutes !== undefined && !TickMinutes.safeParse(options.minutes).success) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot advance world "${worldId}" by ${options.minutes} minutes: use a whole number from 1 to 1440`,
    );
  }
  return concurrency;
}

/**
 * Refuses, before any work, a scheduled tick of a paused or manual world, or a tick that would
 * carry the clock past the last game year (it would lose its sortable form).
 * @throws `conflict` (scheduled but paused or manual), `unprocessable`.
 */
export function assertCanAdvance(
  current: Clocked,
  options: Pick<RunTickOptions, "minutes" | "scheduled">,
): void {
  assertSchedulable(current, options);
  const end = addMinutes(current.clock.now, options.minutes ?? current.clock.minutesPerTick);
  if (!inGameYears(end)) {
    throw new SimulacraError(
      "unprocessable",
      `Cannot tick world "${current.id}" from "${current.clock.now}": its clock would pass the last game year, ${MAX_GAME_YEAR}`,
      { details: { clock: current.clock.now, maxYear: MAX_GAME_YEAR } },
    );
  }
}

/**
 * The tick lease's TTL: renewed while the tick runs, so a tick coordinator that crashed is taken
 * over this long after its last renewal.
 */
export const TICK_LEASE_TTL_MS = 15_000;

export function busy(tickId: string, worldId: string): ConflictError {
  return new ConflictError(
    `Cannot run tick "${tickId}" of world "${worldId}": another tick of the world (or this one) is still running: send the request again later for its result`,
    { details: { retryAfterSeconds: 5 } },
  );
}

/** Thrown after the clock moved, so the tick is not marked retryable. */
class ClockMoved extends Error {
  override readonly cause: unknown;
  constructor(cause: unknown) {
    super("The tick failed after its clock moved", { cause });
    this.cause = cause;
  }
}

async function tickLocked<U, P, S, W extends Clocked>(
  deps: Pick<Deps, "storage" | "sleep">,
  world: W,
  tickId: string,
  system: TickSystem<U, P, S, W>,
  options: {
    minutes: number;
    concurrency: number;
    lease: Lease;
    lockTtlMs: number;
    stepWaitMs: number;
  },
): Promise<TickRecord<S>> {
  const worldId = world.id;
  const from = world.clock.now;
  const frame: TickFrame<W> = {
    world,
    tickId,
    from,
    to: addMinutes(from, options.minutes),
    minutes: options.minutes,
    concurrency: options.concurrency,
  };
  const units = await system.units(frame);
  const prepared = await system.prepare(frame, units);
  const outcomes = await mapBounded(units, options.concurrency, async (unit) => {
    const key = system.unitKey(unit);
    try {
      const needs = system.needs?.(frame, key, prepared.shared) ?? { leases: [], documents: [] };
      const stepLease: WorkLease = {
        key: `step:${worldId}:${key}`,
        ttlMs: options.lockTtlMs,
        waitMs: options.stepWaitMs,
        busy: () => new ConflictError(`Cannot step "${key}" in world "${worldId}": it is busy`),
      };
      return await withUnitOfWork(
        deps,
        { leases: [stepLease, ...needs.leases], documents: needs.documents, reads: needs.reads },
        (work) => system.step(frame, unit, prepared.shared, work),
      );
    } catch (err) {
      return { ...system.failed(frame, unit, err), failed: true };
    }
  });
  let finished: PhaseOutcome;
  try {
    finished = await system.finish(frame, prepared.shared, outcomes);
  } catch (err) {
    finished = {
      events: [{ type: "tick_error", at: frame.to, phase: "finish", ...errorFields(err) }],
      usage: emptyUsage(),
    };
  }
  // Fenced: a tick whose lease was taken over (after a stall longer than its TTL) cannot move
  // the clock under the tick that took over.
  const clock = await system.clock.advance(deps, worldId, from, frame.to, {
    fence: options.lease,
  });

  try {
    const usage = addUsage(prepared.usage, ...outcomes.map((o) => o.usage), finished.usage);
    const tickEvent: NewEvent = {
      type: "tick",
      at: frame.to,
      from,
      minutes: options.minutes,
      steps: outcomes.length,
      failed: outcomes.filter((o) => o.failed).length,
      calls: usage.calls,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
    };
    const events = [
      tickEvent,
      ...prepared.events,
      ...outcomes.flatMap((o) => o.events),
      ...finished.events,
    ].map((e) => ({ ...e, tickId }));
    const logged = await deps.storage.events.append(worldId, events);
    return {
      tickId,
      from,
      minutes: options.minutes,
      clock,
      steps: outcomes.map((o) => o.summary),
      usage,
      events: logged.length,
    };
  } catch (err) {
    throw new ClockMoved(err);
  }
}

export function assertSchedulable(
  world: Clocked,
  options: Pick<RunTickOptions, "scheduled">,
): void {
  if (!options.scheduled) return;
  if (world.clock.paused || world.clock.mode === "manual") {
    throw new ConflictError(
      `Cannot run the scheduled tick of world "${world.id}": it is ${
        world.clock.paused ? "paused" : "in manual mode"
      }`,
    );
  }
}

export function markerError(marker: { code: ErrorCode; message: string }): SimulacraError {
  return marker.code === "conflict"
    ? new ConflictError(marker.message)
    : new SimulacraError(marker.code, marker.message);
}

/** The user-safe code and message of an error, for events. */
export function errorFields(err: unknown): { code: ErrorCode; error: string } {
  return err instanceof SimulacraError
    ? { code: err.code, error: err.message }
    : { code: "internal_error", error: "Unexpected error" };
}
