/**
 * @module A tick fanned out through the platform's queue: the caller (cron or `POST …/tick`) only
 * plans it — claims the tick id, runs the shared preparation once, stores the plan as the world's
 * open tick — and enqueues one message per group of units. Each group is stepped in its own
 * invocation (`tick_messages.ts`); the tick closes when every unit has reported or its deadline
 * passed. A world has at most one open tick: another tick id is answered at once with 409.
 */
import type { Deps } from "../deps.ts";
import type { WorldId } from "../ids.ts";
import type { DocumentKey } from "../ports/document_store.ts";
import type { Storage } from "../ports/storage.ts";
import type { TickMessage, TickQueue } from "../ports/tick_queue.ts";
import { ConflictError } from "../errors.ts";
import { addMinutes, type GameTime } from "../time/game_time.ts";
import type { Clocked } from "./tick_clock.ts";
import {
  assertCanAdvance,
  busy,
  markerError,
  type PhaseOutcome,
  type RunTickOptions,
  TICK_LEASE_TTL_MS,
  type TickFrame,
  type TickMarker,
  type TickRecord,
  type TickSystem,
  validateTickOptions,
} from "./tick_engine.ts";
import { withLease } from "./lease.ts";
import { closeTick } from "./tick_close.ts";
import { TICK_RECORD_TTL_MS } from "./tick_records.ts";

/** What a tick system adds so its steps can run in other invocations. */
export interface QueuedTickSystem<U, P, S, W extends Clocked> extends TickSystem<U, P, S, W> {
  /** Units stepped one after another in one message (e.g. agents that may talk together). */
  groups(frame: TickFrame<W>, units: readonly U[], shared: P): U[][];
  /**
   * One unit read again by the invocation that steps it: from `storage` when given, the step's
   * unit of work's (its `needs` list the unit's document, so this read costs nothing).
   */
  unit(frame: TickFrame<W>, key: string, storage?: Storage): Promise<U>;
  /** The shared preparation as JSON (stored in the plan). */
  encode(shared: P): unknown;
  /** The shared preparation back from JSON, with fresh per-step state. */
  decode(json: unknown): P;
  /** What one step left in `shared` for `finish` (e.g. objects put to use), as JSON. */
  carried(shared: P): unknown;
  /** Puts every step's carried state back into `shared` before `finish`. */
  merge(shared: P, carried: readonly unknown[]): void;
  /**
   * The documents the close reads (`finish`'s and the clock's), read together with one round
   * trip; the close's writes to them are committed at once, fenced by the tick lease.
   */
  closeNeeds?(frame: TickFrame<W>): DocumentKey[];
}

/** The plan of a world's open tick, stored until it closes. */
export interface OpenTick<W> {
  tickId: string;
  world: W;
  from: GameTime;
  to: GameTime;
  minutes: number;
  /** Units a phase runs at once (the tick's concurrency). */
  concurrency: number;
  /** Unit keys per message. */
  groups: string[][];
  shared: unknown;
  /** Wall-clock ms after which units that have not reported are recorded as failed. */
  deadlineAt: number;
  /** Units whose step failed are tried this many times in all. */
  maxAttempts: number;
  /**
   * The preparation's events and usage, for the close (plans stored before this field keep
   * them in the step results, as unit `_prepare`).
   */
  prepared?: PhaseOutcome;
}

/** Options for {@linkcode planQueuedTick}. */
export interface QueuedTickOptions
  extends Pick<RunTickOptions, "minutes" | "tickId" | "scheduled" | "concurrency"> {
  /** How long the tick may take before stragglers are recorded as failed. @default 300000 */
  deadlineMs?: number;
  /** Tries per unit before its failure is reported. @default 3 */
  maxAttempts?: number;
}

/** A planned tick: queued, or already closed (a repeated tick id). */
export type PlannedTick<S> =
  | { tickId: string; status: "queued" }
  | { tickId: string; status: "done"; result: TickRecord<S> };

/** The world's open tick. */
export function openTickKey(worldId: string): DocumentKey {
  return { collection: "tick_open", scope: worldId, id: "current" };
}

/** Where a tick id's marker lives (the same as the in-process engine's). */
export function markerScope(worldId: string): string {
  return `tick:${worldId}`;
}

/** How often an open tick is checked: closed when complete, lost steps sent again. */
export const CHECK_EVERY_MS = 20_000;

/**
 * Plans a tick and enqueues its steps. A repeated tick id answers its result (or `queued` while
 * it runs). An open tick of another id past its deadline is closed first (a crashed tick heals).
 * @throws `invalid_request`, `world_not_found`, `unprocessable` (past the last game year),
 * `conflict` at once (paused, or another tick open; `details.retryAfterSeconds`).
 */
export async function planQueuedTick<U, P, S, W extends Clocked>(
  deps: Pick<Deps, "ids" | "storage" | "sleep">,
  worldId: WorldId,
  system: QueuedTickSystem<U, P, S, W>,
  options: QueuedTickOptions & { queue: TickQueue },
): Promise<PlannedTick<S>> {
  const { queue } = options;
  const tickId = options.tickId ?? deps.ids.next("t");
  const concurrency = validateTickOptions(worldId, options);
  const scope = markerScope(worldId);
  const seen = await deps.storage.idempotency.get<TickMarker<S>>(scope, tickId);
  if (seen?.status === "done") return { tickId, status: "done", result: seen.result };

  const planned = await withLease(deps, `tick:${worldId}`, async (held) => {
    // The marker and the world are read with the open tick (again after closing a late one).
    const markerAndWorld = () =>
      Promise.all([
        deps.storage.idempotency.get<TickMarker<S>>(scope, tickId),
        system.clock.load(deps, worldId),
      ]);
    const [open, read] = await Promise.all([
      currentOpenTick<W, S>(deps, worldId),
      markerAndWorld(),
    ]);
    if (open?.tickId === tickId) return { tickId, status: "queued" } as const;
    if (open && queue.now() < open.deadlineAt) throw busy(tickId, worldId);
    if (open) await closeTick(deps, open, { system, queue, held });
    const [marker, world] = open ? await markerAndWorld() : read;
    if (marker?.status === "done") {
      return { tickId, status: "done", result: marker.result } as const;
    }
    if (marker?.status === "failed" && !marker.retryable) throw markerError(marker);
    assertCanAdvance(world, options);
    if (marker?.status === "running" && marker.from !== world.clock.now) {
      throw new ConflictError(
        `Cannot answer tick "${tickId}" of world "${worldId}": its first run stopped after the clock moved: send a new tick id`,
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
    };
    // The units are read with the marker's write (one round trip on a hosted store): a failed
    // write fails the plan before anything else is written.
    const [, units] = await Promise.all([
      deps.storage.idempotency.put<TickMarker<S>>(scope, tickId, {
        status: "running",
        from: world.clock.now,
      }),
      system.units(frame),
    ]);
    const prepared = await system.prepare(frame, units);
    const groups = system.groups(frame, units, prepared.shared)
      .map((g) => g.map((u) => system.unitKey(u)));
    const plan: OpenTick<W> = {
      tickId,
      world,
      from: frame.from,
      to: frame.to,
      minutes,
      concurrency,
      groups,
      shared: system.encode(prepared.shared),
      deadlineAt: queue.now() + (options.deadlineMs ?? 300_000),
      maxAttempts: options.maxAttempts ?? 3,
      prepared: { events: prepared.events, usage: prepared.usage },
    };
    await deps.storage.documents.create(openTickKey(worldId), plan);
    if (groups.length === 0) {
      const closed = await closeTick<S>(deps, plan, { system, queue, held });
      if (closed.closed && closed.result) {
        return { tickId, status: "done", result: closed.result } as const;
      }
    }
    const steps: TickMessage[] = groups.map((_, group) => ({
      kind: "step",
      worldId,
      tickId,
      group,
      attempt: 1,
    }));
    await queue.send(steps);
    await queue.send([{ kind: "close", worldId, tickId }], { delayMs: CHECK_EVERY_MS });
    held.assertHeld();
    return { tickId, status: "queued" } as const;
  }, { ttlMs: TICK_LEASE_TTL_MS, waitMs: 5_000, busy: () => busy(tickId, worldId) });
  return planned;
}

/**
 * The world's open tick, or null. A record whose tick already closed (its closer stopped between
 * storing the result and removing the record) is removed here.
 */
async function currentOpenTick<W, S>(
  deps: Pick<Deps, "storage">,
  worldId: string,
): Promise<OpenTick<W> | null> {
  const open = (await deps.storage.documents.get<OpenTick<W>>(openTickKey(worldId)))?.value;
  if (!open) return null;
  const marker = await deps.storage.idempotency.get<TickMarker<S>>(
    markerScope(worldId),
    open.tickId,
  );
  if (marker?.status !== "done" && marker?.status !== "failed") return open;
  await deps.storage.documents.delete(openTickKey(worldId));
  return null;
}

/**
 * Where a world's step results are kept: one scope per world, so deleting the world clears
 * every tick's (ticks are many; a scope per tick could not be found again to delete).
 */
export function stepScope(worldId: string): string {
  return `tickstep:${worldId}`;
}

/**
 * A tick's per-unit results, keyed by tick id and unit within the world's step scope, and how
 * many units have reported (counted by the commits that claim their results). They expire a day
 * after they are stored ({@linkcode TICK_RECORD_TTL_MS}), long after the close.
 */
export function stepResults(deps: Pick<Deps, "storage">, worldId: string, tickId: string) {
  const { idempotency } = deps.storage;
  const scope = stepScope(worldId);
  const keep = { ttlMs: TICK_RECORD_TTL_MS };
  // Units are ids or "_prepare" (no "/"), so the key's last "/" splits it unambiguously; the
  // count's "#" is in no id.
  const key = (unit: string) => `${tickId}/${unit}`;
  return {
    get: <T>(unit: string) => idempotency.get<T>(scope, key(unit)),
    /** Where a unit's result is claimed (and counted), for a commit to claim it. */
    claimKey: (unit: string) => ({ scope, key: key(unit), counter: key("#reported"), ...keep }),
    /** Stores the count again to expire with the results (a store may count without expiry). */
    keepCount: (count: number) => idempotency.put(scope, key("#reported"), count, keep),
  };
}

/**
 * Waits until a tick id has closed and returns its result, polling its marker.
 * @throws the tick's failure; `conflict` when it is still open after `waitMs`.
 */
export async function awaitTick<S>(
  deps: Pick<Deps, "storage" | "sleep">,
  worldId: WorldId,
  tickId: string,
  options: { waitMs: number; pollMs?: number },
): Promise<TickRecord<S>> {
  const poll = options.pollMs ?? 200;
  for (let waited = 0;; waited += poll) {
    const marker = await deps.storage.idempotency.get<TickMarker<S>>(
      markerScope(worldId),
      tickId,
    );
    if (marker?.status === "done") return marker.result;
    if (marker?.status === "failed") throw markerError(marker);
    if (waited >= options.waitMs) throw busy(tickId, worldId);
    await deps.sleep(poll);
  }
}
