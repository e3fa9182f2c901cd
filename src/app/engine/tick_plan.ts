/**
 * @module Planning a tick, the one way every tick starts: under the world's tick lease the tick
 * id is claimed, the shared preparation runs once, the plan is stored as the world's open tick,
 * and the runner starts the steps (in this process, closing the tick before the lease is let
 * go; or through the platform's queue, each group of units in its own invocation). A world has
 * at most one open tick. Also the checks made before a tick starts.
 */
import type { Deps } from "../../ports/mod.ts";
import {
  addMinutes,
  type Clocked,
  ConflictError,
  inGameYears,
  MAX_GAME_YEAR,
  SimulacraError,
  TickMinutes,
  type WorldId,
} from "../../domain/mod.ts";
import {
  busy,
  fullSystem,
  markerError,
  type RunTickOptions,
  TICK_LEASE_TTL_MS,
  type TickFrame,
  type TickMarker,
  type TickRecord,
  type TickSystem,
} from "./tick_engine.ts";
import { withLease } from "./lease.ts";
import {
  type Closing,
  currentOpenTick,
  keepOpenTick,
  markerScope,
  type OpenTick,
  openTickKey,
  type TickRunner,
} from "./tick_store.ts";

/** Options for {@linkcode planTick}. */
export interface PlanTickOptions<U, P, S, W extends Clocked> extends RunTickOptions {
  system: TickSystem<U, P, S, W>;
  runner: TickRunner;
}

/** A planned tick: queued, or closed (in this process, or a repeated tick id). */
export type PlannedTick<S> =
  | { tickId: string; status: "queued" }
  | { tickId: string; status: "done"; result: TickRecord<S> };

/**
 * The most bytes (of JSON) a tick's plan may take: what the embedded store keeps in a document,
 * so no plan it would have stored is refused, and the same on the hosted store, so a world that
 * ticks on one ticks on the other (its plan grows with its agents, some 300 bytes each, and its
 * environment: the limit is some 1,800 agents). A larger plan is refused before anything is
 * stored (`TickSystem.tooLarge`) rather than left to the store to refuse a document the request
 * never sent.
 */
export const MAX_PLAN_BYTES = 600_000;

/** Default time a tick may take before its stragglers are recorded as failed. */
export const TICK_DEADLINE_MS = 300_000;

/**
 * Plans a tick and starts its steps with `options.runner`. A repeated tick id answers its result
 * (or `queued` while its steps run elsewhere). An open tick of the world is brought to its
 * close first when the runner can (a crashed tick heals); else the tick is refused at once. A
 * failure before the plan was stored leaves the clock alone and the id free to run again.
 * @throws `invalid_request`, `world_not_found`, `unprocessable` (past the last game year),
 * `conflict` (paused, another tick holds or keeps the world; `details.retryAfterSeconds`),
 * `world_too_large` (its plan would pass {@linkcode MAX_PLAN_BYTES}).
 */
export async function planTick<U, P, S, W extends Clocked>(
  deps: Pick<Deps, "ids" | "storage" | "sleep">,
  worldId: WorldId,
  options: PlanTickOptions<U, P, S, W>,
): Promise<PlannedTick<S>> {
  const { runner } = options;
  const system = fullSystem(options.system);
  const tickId = options.tickId ?? deps.ids.next("t");
  const concurrency = validateTickOptions(worldId, options);
  const scope = markerScope(worldId);
  const idem = deps.storage.idempotency;
  // A finished tick answers at once, without waiting for the world's lease.
  const seen = await idem.get<TickMarker<S>>(scope, tickId);
  if (seen?.status === "done") return { tickId, status: "done", result: seen.result };
  if (seen?.status === "failed" && !seen.retryable) throw markerError(seen);

  return await withLease(deps, {
    key: `tick:${worldId}`,
    ttlMs: TICK_LEASE_TTL_MS,
    waitMs: options.waitMs ?? runner.waitMs,
    busy: () => busy(tickId, worldId),
  }, async (held) => {
    const context = { system, held };
    // The marker and the world are read with the open tick (again after closing it).
    const markerAndWorld = () =>
      Promise.all([idem.get<TickMarker<S>>(scope, tickId), system.clock.load(deps, worldId)]);
    const [open, read] = await Promise.all([
      currentOpenTick<Clocked, S>(deps, worldId),
      markerAndWorld(),
    ]);
    if (open) {
      const settled = await runner.settle<S>(deps, open, context);
      if (open.tickId === tickId) return await answer(deps, open, settled);
      if (!settled.closed) throw busy(tickId, worldId);
    }
    const [marker, world] = open ? await markerAndWorld() : read;
    if (marker?.status === "done") return { tickId, status: "done", result: marker.result };
    if (marker?.status === "failed" && !marker.retryable) throw markerError(marker);
    assertCanAdvance(world, options);
    if (marker?.status === "running" && marker.from !== world.clock.now) {
      // Its first run stopped after moving the clock (the process ended): the result is lost.
      throw new ConflictError(
        `Cannot answer tick "${tickId}" of world "${worldId}": its first run stopped after the clock moved and its result was lost: send a new tick id`,
      );
    }
    const minutes = options.minutes ?? world.clock.minutesPerTick;
    const frame: TickFrame<W> = {
      world,
      tickId,
      from: world.clock.now,
      to: addMinutes(world.clock.now, minutes),
      minutes,
      concurrency,
      ...(options.billing ? { billing: options.billing } : {}),
    };
    let plan: OpenTick<W>;
    try {
      // The units are read with the marker's write (one round trip on a hosted store): a failed
      // write fails the plan before anything else is written.
      const [, units] = await Promise.all([
        idem.put<TickMarker<S>>(scope, tickId, {
          value: { status: "running", from: world.clock.now },
        }),
        system.units(frame),
      ]);
      const prepared = await system.prepare(frame, units);
      plan = {
        tickId,
        world,
        from: frame.from,
        to: frame.to,
        minutes,
        concurrency,
        groups: system.groups(frame, units, prepared.shared).map((g) => g.map(system.unitKey)),
        shared: system.encode(prepared.shared),
        deadlineAt: runner.deadlineAt(options.deadlineMs ?? TICK_DEADLINE_MS),
        maxAttempts: options.maxAttempts ?? 3,
        prepared: { events: prepared.events, usage: prepared.usage },
        ...(options.billing ? { billing: options.billing } : {}),
      };
      const bytes = new TextEncoder().encode(JSON.stringify(plan)).length;
      if (bytes > MAX_PLAN_BYTES) {
        const size = { units: units.length, bytes, maxBytes: MAX_PLAN_BYTES };
        throw system.tooLarge(frame, size, prepared.shared);
      }
      await deps.storage.documents.create(openTickKey(worldId), plan);
      keepOpenTick(deps, plan, "loaded" in prepared ? { value: prepared.loaded } : undefined);
    } catch (err) {
      // The clock did not move: the same id may run again.
      const e = err instanceof SimulacraError
        ? err
        : new SimulacraError("internal_error", "Cannot run the tick: unexpected error");
      await idem.put<TickMarker<S>>(scope, tickId, {
        value: { status: "failed", retryable: true, code: e.code, message: e.message },
      }).catch(() => {});
      throw err;
    }
    const started = await runner.start<S>(deps, plan, context);
    held.assertHeld();
    return await answer(deps, plan, started);
  });
}

/** A tick's answer once its runner started or settled it. */
async function answer<S>(
  deps: Pick<Deps, "storage">,
  open: OpenTick<Clocked>,
  closing: Closing<S>,
): Promise<PlannedTick<S>> {
  const { tickId } = open;
  if (!closing.closed) return { tickId, status: "queued" };
  if (closing.result) return { tickId, status: "done", result: closing.result };
  // Closed without a result: it stopped after its clock moved, and its marker says so.
  const marker = await deps.storage.idempotency.get<TickMarker<S>>(
    markerScope(open.world.id),
    tickId,
  );
  if (marker?.status === "done") return { tickId, status: "done", result: marker.result };
  throw markerError(
    marker?.status === "failed" ? marker : {
      code: "conflict",
      message: `Cannot answer tick "${tickId}": its result was lost: send a new tick id`,
    },
  );
}

const DEFAULT_CONCURRENCY = 8;
const MAX_CONCURRENCY = 64;

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

/** Refuses a scheduled tick of a paused or manual world. @throws `conflict`. */
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
