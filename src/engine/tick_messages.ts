/**
 * @module What the queue's consumer runs for a tick message. Every message is safe to deliver
 * twice: a unit's result is claimed once under (tick id, unit) and a unit that has one is never
 * stepped again; the close moves the clock by compare-and-set and happens once under the tick
 * lease. A step that throws (or reports a failure) is tried again with back-off, then reported
 * as failed.
 */
import type { Deps } from "../deps.ts";
import { ConflictError, SimulacraError } from "../errors.ts";
import type { WorldId } from "../ids.ts";
import { addUsage, emptyUsage } from "../model/usage.ts";
import type { NewEvent } from "../ports/event_log.ts";
import type { TickMessage, TickQueue } from "../ports/tick_queue.ts";
import type { Clocked } from "./tick_clock.ts";
import { type HeldLease, withLease } from "./lease.ts";
import { withUnitOfWork, type WorkLease } from "./unit_of_work.ts";
import {
  CHECK_EVERY_MS,
  markerScope,
  type OpenTick,
  openTickKey,
  type QueuedTickSystem,
  stepResults,
} from "./queued_tick.ts";
import {
  errorFields,
  type PhaseOutcome,
  type StepOutcome,
  TICK_LEASE_TTL_MS,
  type TickFrame,
  type TickMarker,
  type TickRecord,
} from "./tick_engine.ts";

/** A unit's stored result: what its step produced and what it left for `finish`. */
interface UnitResult<S> {
  outcome: StepOutcome<S>;
  carried: unknown;
}

/** The engine pieces a message needs. */
export interface TickMessageContext<U, P, S, W extends Clocked> {
  system: QueuedTickSystem<U, P, S, W>;
  queue: TickQueue;
}

/** Back-off before the n-th try of a failed step: 1 s, 4 s, 9 s… */
export function retryDelayMs(attempt: number): number {
  return (attempt - 1) ** 2 * 1_000;
}

/**
 * Handles one delivered message. Throws only for faults the platform should redeliver on
 * (e.g. the store is down); a failing unit is retried or reported, never thrown.
 */
export async function handleTickMessage<U, P, S, W extends Clocked>(
  deps: Pick<Deps, "ids" | "storage" | "sleep">,
  message: TickMessage,
  context: TickMessageContext<U, P, S, W>,
): Promise<void> {
  const open = await loadOpen<W>(deps, message.worldId, message.tickId);
  if (!open) return; // closed already: a late or repeated delivery changes nothing
  if (message.kind === "close") {
    const closed = await closeLocked(deps, message, context);
    if (!closed) {
      await resendLost(deps, open, context.queue);
      await context.queue.send([message], { delayMs: CHECK_EVERY_MS });
    }
    return;
  }
  const keys = open.groups[message.group] ?? [];
  const frame = frameOf(open);
  // Whether a unit has its result already is read in its step's first round trip.
  for (const key of keys) {
    if (context.queue.now() >= open.deadlineAt) return; // the close records it as failed
    const final = message.attempt >= open.maxAttempts;
    const stepped = await stepUnit(deps, frame, key, { open, context, final });
    if (stepped === "busy") return; // another delivery is stepping it right now
    if (stepped !== "done" && message.attempt < open.maxAttempts) {
      const attempt = message.attempt + 1;
      await context.queue.send([{ ...message, attempt }], { delayMs: retryDelayMs(attempt) });
      return;
    }
    if (stepped !== "done") await reportFailed(deps, frame, key, { context, error: stepped.error });
  }
  // Only a message that may be the last to report takes the world's lease to close.
  if (await allReported(deps, open)) await closeLocked(deps, message, context);
}

/**
 * Whether every unit has its result. The last unit of the plan is read first, alone: messages
 * mostly finish in plan order, so for all but the last message it is missing and one small read
 * answers; only then are the others read (together: one pipelined request on a hosted store).
 */
async function allReported<W>(deps: Pick<Deps, "storage">, open: OpenTick<W>): Promise<boolean> {
  const unitResults = stepResults(deps, (open.world as Clocked).id, open.tickId);
  const keys = open.groups.flat();
  if (await unitResults.get(keys[keys.length - 1]) === null) return false;
  const results = await Promise.all(keys.slice(0, -1).map((k) => unitResults.get(k)));
  return results.every((r) => r !== null);
}

async function stepUnit<U, P, S, W extends Clocked>(
  deps: Pick<Deps, "storage" | "sleep">,
  frame: TickFrame<W>,
  key: string,
  options: { open: OpenTick<W>; context: TickMessageContext<U, P, S, W>; final: boolean },
): Promise<"done" | "busy" | { error: unknown }> {
  const { system } = options.context;
  const unitResults = stepResults(deps, frame.world.id, frame.tickId);
  try {
    const shared = system.decode(options.open.shared);
    const unit = await system.unit(frame, key);
    const needs = system.needs?.(frame, unit, shared) ?? { leases: [], documents: [] };
    const stepLease: WorkLease = {
      key: `step:${frame.world.id}:${key}`,
      ttlMs: TICK_LEASE_TTL_MS,
      waitMs: 0,
      busy: () => new StepBusy(),
    };
    // The step lease, the step's own leases and documents and its result's claim as one unit
    // of work: the claim is read with them and written in the step's commit, first write wins.
    return await withUnitOfWork(
      deps,
      { ...needs, leases: [stepLease, ...needs.leases], claim: unitResults.claimKey(key) },
      async (storage, claim) => {
        if (claim.stored !== null) return "done" as const;
        const outcome = await system.step(frame, unit, shared, storage);
        // A step that failed partway is tried again while tries remain (its writes are keyed, so
        // what it stored already is not stored twice); the last try's failure is its report.
        if (outcome.failed && !options.final) return { error: new StepFailed() };
        claim.set({ outcome, carried: system.carried(shared) } satisfies UnitResult<S>);
        return "done" as const;
      },
    );
  } catch (err) {
    if (err instanceof StepBusy) return "busy";
    // Claimed by another delivery meanwhile: its commit won, and this one wrote nothing.
    return (await unitResults.get(key).catch(() => null)) ? "done" : { error: err };
  }
}

class StepBusy extends Error {}
class StepFailed extends Error {}

async function reportFailed<U, P, S, W extends Clocked>(
  deps: Pick<Deps, "storage">,
  frame: TickFrame<W>,
  key: string,
  options: { context: TickMessageContext<U, P, S, W>; error: unknown },
): Promise<UnitResult<S>> {
  const { system } = options.context;
  let unit: U | null = null;
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
  const claim = await stepResults(deps, frame.world.id, frame.tickId).claim<UnitResult<S>>(key, {
    outcome,
    carried: null,
  });
  return claim.value;
}

function closeLocked<U, P, S, W extends Clocked>(
  deps: Pick<Deps, "ids" | "storage" | "sleep">,
  ids: { worldId: string; tickId: string },
  context: TickMessageContext<U, P, S, W>,
): Promise<TickRecord<S> | null> {
  return withLease(
    deps,
    `tick:${ids.worldId}`,
    (held) => closeTick<S>(deps, ids, { ...context, held }),
    {
      ttlMs: TICK_LEASE_TTL_MS,
      waitMs: 15_000,
      busy: () => new ConflictError(`Cannot close tick "${ids.tickId}": its world is busy`),
    },
  );
}

/**
 * Closes an open tick when every unit reported or its deadline passed (stragglers recorded as
 * failed): `finish`, the clock moved (fenced by the tick lease), the events appended, the
 * marker done, the open tick removed. Call it holding the world's tick lease.
 * @returns the result, or null when the tick is not complete yet.
 */
export async function closeTick<S>(
  deps: Pick<Deps, "storage" | "sleep">,
  ids: { worldId: string; tickId: string },
  // deno-lint-ignore no-explicit-any
  context: TickMessageContext<any, any, S, any> & { held: HeldLease },
): Promise<TickRecord<S> | null> {
  const { system, queue, held } = context;
  const open = await loadOpen<Clocked>(deps, ids.worldId, ids.tickId);
  const markerAt = markerScope(ids.worldId);
  if (!open) {
    const marker = await deps.storage.idempotency.get<TickMarker<S>>(markerAt, ids.tickId);
    return marker?.status === "done" ? marker.result : null;
  }
  const frame = frameOf(open);
  const unitResults = stepResults(deps, ids.worldId, ids.tickId);
  const keys = open.groups.flat();
  const stored = await Promise.all(
    keys.map((k) => unitResults.get<UnitResult<S>>(k)),
  );
  const late = queue.now() >= open.deadlineAt;
  if (!late && stored.some((r) => r === null)) return null;
  const results = await Promise.all(
    stored.map((r, i) =>
      r ?? reportFailed<unknown, unknown, S, Clocked>(deps, frame, keys[i], {
        context: { system, queue },
        error: new SimulacraError(
          "internal_error",
          `The step of "${keys[i]}" did not report before the tick's deadline`,
        ),
      })
    ),
  );
  const outcomes = results.map((r) => r.outcome);
  const prepared = (await unitResults.get<PhaseOutcome>("_prepare")) ??
    { events: [], usage: emptyUsage() };
  const shared = system.decode(open.shared);
  system.merge(shared, results.map((r) => r.carried).filter((c) => c !== null));
  let finished: PhaseOutcome;
  try {
    finished = await system.finish(frame, shared, outcomes);
  } catch (err) {
    finished = {
      events: [{ type: "tick_error", at: frame.to, phase: "finish", ...errorFields(err) }],
      usage: emptyUsage(),
    };
  }
  const world = await system.clock.load(deps, ids.worldId);
  if (world.clock.now !== open.from) {
    // A closer before this one moved the clock and died before it finished: never stuck.
    await deps.storage.idempotency.put<TickMarker<S>>(markerAt, ids.tickId, {
      status: "failed",
      retryable: false,
      code: "conflict",
      message: `Tick "${ids.tickId}" stopped after its clock moved and its result was lost`,
    });
    await deps.storage.documents.delete(openTickKey(ids.worldId));
    return null;
  }
  const clock = await system.clock.advance(deps, ids.worldId, open.from, open.to, {
    fence: held.lease,
  });
  const usage = addUsage(prepared.usage, ...outcomes.map((o) => o.usage), finished.usage);
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
  const events = [tickEvent, ...prepared.events, ...outcomes.flatMap((o) => o.events)]
    .concat(finished.events).map((e) => ({ ...e, tickId: ids.tickId }));
  const logged = await deps.storage.events.append(ids.worldId as WorldId, events);
  const result: TickRecord<S> = {
    tickId: ids.tickId,
    from: open.from,
    minutes: open.minutes,
    clock,
    steps: outcomes.map((o) => o.summary),
    usage,
    events: logged.length,
  };
  await deps.storage.idempotency.put<TickMarker<S>>(markerAt, ids.tickId, {
    status: "done",
    result,
  });
  await deps.storage.documents.delete(openTickKey(ids.worldId));
  return result;
}

/** Sends the step messages of groups with units that have no result (their delivery was lost). */
async function resendLost<W>(
  deps: Pick<Deps, "storage">,
  open: OpenTick<W>,
  queue: TickQueue,
): Promise<void> {
  const unitResults = stepResults(deps, (open.world as Clocked).id, open.tickId);
  const missing: TickMessage[] = [];
  for (const [group, keys] of open.groups.entries()) {
    const results = await Promise.all(keys.map((k) => unitResults.get(k)));
    if (results.some((r) => r === null)) {
      missing.push({
        kind: "step",
        worldId: (open.world as Clocked).id,
        tickId: open.tickId,
        group,
        attempt: 1,
      });
    }
  }
  if (missing.length > 0) await queue.send(missing);
}

async function loadOpen<W>(
  deps: Pick<Deps, "storage">,
  worldId: string,
  tickId: string,
): Promise<OpenTick<W> | null> {
  const open = (await deps.storage.documents.get<OpenTick<W>>(openTickKey(worldId)))?.value;
  return open?.tickId === tickId ? open : null;
}

function frameOf<W extends Clocked>(open: OpenTick<W>): TickFrame<W> {
  return {
    world: open.world,
    tickId: open.tickId,
    from: open.from,
    to: open.to,
    minutes: open.minutes,
    concurrency: open.concurrency,
  };
}
