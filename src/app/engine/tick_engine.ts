/**
 * @module What the tick engine is made of: the frame of a tick, the behaviour a tick runs (a
 * {@linkcode TickSystem}, AI Town's engine/game split), its stored result and marker. The engine
 * itself is plan → steps → close (`tick_plan.ts`, with the checks made before a tick starts;
 * `tick_steps.ts`, `tick_close.ts`), its steps run by a runner (`tick_runners.ts`): in this
 * process, or through the platform's queue.
 */
import {
  type Clocked,
  type ClockState,
  ConflictError,
  type ErrorCode,
  type GameTime,
  SimulacraError,
  type TickBilling,
  type Usage,
} from "../../domain/mod.ts";
import type { DocumentKey, NewEvent, Storage } from "../../ports/mod.ts";
import { type TickClock } from "./tick_clock.ts";
import type { WorkNeeds, WorkUnit } from "./unit_of_work.ts";

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
  /** Who the tick's model calls count toward; unset: nobody checks a budget. */
  billing?: TickBilling;
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
  /**
   * What the step leaves for `finish` (e.g. objects put to use), as JSON: stored with its
   * result, not in its outcome, and put back into `shared` by `merge`. @default nothing
   */
  carried?: unknown;
}

/** What a step gets besides its frame and unit: the shared preparation, and its unit of work. */
export interface StepWork<P> {
  shared: P;
  /** The step's unit of work: its storage and the leases it took for `needs.leases`. */
  work?: WorkUnit;
}

/** What `finish` gets: the shared preparation with every step's carried state, its storage. */
export interface FinishWork<P> {
  shared: P;
  /** The close's unit of work's storage (its writes are fenced by the tick lease). */
  storage?: Storage;
}

/**
 * The behaviour a tick runs. The engine calls `units`, then `prepare` once, then `step` for
 * every unit (at most `concurrency` groups at once, each step under its own lease, in this
 * process or in the invocation a queue message starts), then `finish` once. A `step` that throws
 * becomes `failed(…)` for that unit only. The members after `finish` say how steps travel; each
 * has a default that suits a system whose units and preparation are small JSON values.
 */
export interface TickSystem<U, P, S, W extends Clocked = Clocked> {
  /** Reads and moves the clock of the world being ticked. */
  clock: TickClock<W>;
  /** The units to step, in a stable order. */
  units(frame: TickFrame<W>): Promise<U[]>;
  /** The unit's id, for its lease and failure reports. */
  unitKey(unit: U): string;
  /**
   * Work done once for all units before the steps (e.g. batched model calls). `loaded`, when
   * the preparation read it already, is what `load` would read now: the planner's process then
   * steps without reading it again.
   */
  prepare(
    frame: TickFrame<W>,
    units: readonly U[],
  ): Promise<PhaseOutcome & { shared: P; loaded?: unknown }>;
  /**
   * Leases (besides the step's own) and documents the step of unit `key` needs: taken and read
   * with the step's lease in one round trip; the step runs in that unit of work.
   */
  needs?(frame: TickFrame<W>, key: string, shared: P): WorkNeeds;
  /** Steps a unit in its unit of work. */
  step(frame: TickFrame<W>, unit: U, work: StepWork<P>): Promise<StepOutcome<S>>;
  /** The outcome of a unit whose step threw (or whose lease stayed busy). */
  failed(frame: TickFrame<W>, unit: U, error: unknown): StepOutcome<S>;
  /** Work done once after every step (e.g. batched writes); it must not throw for one unit. */
  finish(
    frame: TickFrame<W>,
    outcomes: readonly StepOutcome<S>[],
    work: FinishWork<P>,
  ): Promise<PhaseOutcome>;
  /**
   * Units stepped one after another in one message (e.g. agents that may talk together).
   * @default each unit alone
   */
  groups?(frame: TickFrame<W>, units: readonly U[], shared: P): U[][];
  /**
   * One unit read again by the step that runs it: from `storage` when given, the step's unit of
   * work's (its `needs` list the unit's document, so this read costs nothing).
   * @default the unit of that key among `units(frame)`
   */
  unit?(frame: TickFrame<W>, key: string, storage?: Storage): Promise<U>;
  /** The shared preparation as JSON (stored in the plan). @default as it is */
  encode?(shared: P): unknown;
  /**
   * What the steps read of the store besides the plan: state of every unit that a copy per
   * unit in the plan would make the plan grow with the square of the units (e.g. what each
   * agent saw at its last look). Read once per process and tick, with the plan (in its round
   * trip on a hosted store), and given to `decode`. @default nothing
   */
  load?(worldId: string, storage: Storage): Promise<unknown>;
  /**
   * The shared preparation back from JSON and what `load` read (undefined for the close, which
   * steps no unit), with fresh per-step state. @default as it is
   */
  decode?(json: unknown, loaded?: unknown): P;
  /** `shared` with every step's `carried` put back, for `finish`. @default `shared` */
  merge?(shared: P, carried: readonly unknown[]): P;
  /**
   * The error refusing a tick whose plan (`bytes` of JSON) would take more than `maxBytes`: a
   * `world_too_large` naming what makes the world this large. @default one naming the units
   */
  tooLarge?(frame: TickFrame<W>, size: PlanSize, shared: P): SimulacraError;
  /**
   * The documents the close reads (`finish`'s and the clock's), read together with one round
   * trip; the close's writes to them are committed at once, fenced by the tick lease.
   */
  closeNeeds?(frame: TickFrame<W>): DocumentKey[];
}

/** How large a tick's plan would be, and how large it may be. */
export interface PlanSize {
  units: number;
  bytes: number;
  maxBytes: number;
}

/** A system with every member, the defaults filled in. */
export type FullTickSystem<U, P, S, W extends Clocked> = Required<TickSystem<U, P, S, W>>;

/** Fills in the defaults of a system's optional members. */
export function fullSystem<U, P, S, W extends Clocked>(
  system: TickSystem<U, P, S, W>,
): FullTickSystem<U, P, S, W> {
  return {
    tooLarge: (frame, size) =>
      new SimulacraError(
        "world_too_large",
        `Cannot tick world "${frame.world.id}": the plan of a tick of its ${size.units} units takes ${size.bytes} bytes, more than the ${size.maxBytes} a tick's plan may take`,
        { details: size },
      ),
    needs: () => ({ leases: [], documents: [] }),
    groups: (_frame, units) => units.map((u) => [u]),
    unit: async (frame, key) => {
      const found = (await system.units(frame)).find((u) => system.unitKey(u) === key);
      if (found === undefined) throw new Error(`Cannot find unit "${key}"`);
      return found;
    },
    encode: (shared) => shared,
    load: () => Promise.resolve(null),
    decode: (json) => json as P,
    merge: (shared) => shared,
    closeNeeds: () => [],
    ...system,
  };
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

/** Options of a tick (see `planTick`). */
export interface RunTickOptions {
  /** Game minutes to advance (1–1440). @default the world's minutesPerTick */
  minutes?: number;
  /** Repeating an id returns the first result without advancing again. @default a new id */
  tickId?: string;
  /** Groups of units stepped at once. @default 8 */
  concurrency?: number;
  /** How long to wait while another tick of the world holds it. @default the runner's */
  waitMs?: number;
  /**
   * A tick from the scheduler: refused (`conflict`) when the world is paused or in manual mode.
   * A requested tick runs either way: pausing stops the scheduler, not the caller.
   */
  scheduled?: boolean;
  /**
   * How long the tick may take before the units that have not reported are recorded as failed
   * (and another tick of the world may close it). @default 300000
   */
  deadlineMs?: number;
  /** Tries per unit before its failure is reported (queued steps). @default 3 */
  maxAttempts?: number;
  /**
   * Who the tick's model calls count toward, kept in its plan for its steps wherever they run
   * (the system checks the budgets, the queue's consumer charges the key). @default nobody
   */
  billing?: TickBilling;
}

/** A tick id's stored state: claimed and running, failed, or done with its result. */
export type TickMarker<S> =
  | { status: "running"; from: GameTime }
  | { status: "failed"; retryable: boolean; code: ErrorCode; message: string }
  | { status: "done"; result: TickRecord<S> };

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
