/**
 * @module What the queue's consumer runs for a tick message. Every message is safe to deliver
 * twice: a unit's result is claimed once under (tick id, unit), in the commit of its step, and a
 * unit that has one is never stepped again; a step runs only while the world's clock still reads
 * the tick's start (after the close it does not); the close moves the clock by compare-and-set
 * and happens once under the tick lease. A step that throws (or reports a failure) is tried
 * again with back-off, then reported as failed.
 *
 * Cost per step on a hosted store: the plan is read once per process (`_open_tick_cache.ts`);
 * the step's unit of work reads everything it needs, its unit among it, in one request and
 * commits in one, and that commit counts the unit as reported, so the message whose count
 * reaches the number of units closes the tick without reading anyone's result.
 */
import type { Deps } from "../deps.ts";
import { NotFoundError } from "../errors.ts";
import type { Storage } from "../ports/storage.ts";
import type { TickMessage } from "../ports/tick_queue.ts";
import type { Clocked, TickClock } from "./tick_clock.ts";
import { withUnitOfWork, type WorkClaim, type WorkLease } from "./unit_of_work.ts";
import { forgetOpenTick, readOpenTick } from "./_open_tick_cache.ts";
import { CHECK_EVERY_MS, markerScope, type OpenTick, stepResults } from "./queued_tick.ts";
import {
  closeLocked,
  frameOf,
  reportFailed,
  type TickMessageContext,
  type UnitResult,
} from "./tick_close.ts";
import { TICK_LEASE_TTL_MS, type TickFrame, type TickMarker } from "./tick_engine.ts";

/** How long the message completing a tick waits for the tick lease (else its holder closes). */
const CLOSE_WAIT_MS = 1_000;

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
  if (message.kind === "close") return await checkClose(deps, message, context);
  const open = await readOpenTick<W>(deps, message.worldId, message.tickId);
  if (!open) return; // closed already: a late or repeated delivery changes nothing
  const keys = open.groups[message.group] ?? [];
  const frame = frameOf(open);
  const total = open.groups.flat().length;
  let completes = false;
  for (const key of keys) {
    if (context.queue.now() >= open.deadlineAt) return; // the close records it as failed
    const final = message.attempt >= open.maxAttempts;
    const stepped = await stepUnit(deps, frame, key, { open, context, final });
    if (stepped === "busy") return; // another delivery is stepping it right now
    if (stepped === "closed") {
      forgetOpenTick(deps, message.worldId, message.tickId);
      return;
    }
    if ("error" in stepped && message.attempt < open.maxAttempts) {
      const attempt = message.attempt + 1;
      await context.queue.send([{ ...message, attempt }], { delayMs: retryDelayMs(attempt) });
      return;
    }
    const count = "error" in stepped
      ? (await reportFailed(deps, frame, key, { context, error: stepped.error })).count
      : stepped.count;
    // Exactly one report makes the count reach the number of units: its message closes.
    completes ||= count === total;
  }
  if (completes) await closeLocked(deps, open, context, CLOSE_WAIT_MS);
}

/**
 * The tick's periodic check (and its close when every step reported before the last one's
 * message could close it, or the deadline passed): sends again the steps whose delivery was
 * lost, and itself again while the tick stays open.
 */
async function checkClose<U, P, S, W extends Clocked>(
  deps: Pick<Deps, "ids" | "storage" | "sleep">,
  message: TickMessage,
  context: TickMessageContext<U, P, S, W>,
): Promise<void> {
  const { worldId, tickId } = message;
  const marker = await deps.storage.idempotency.get<TickMarker<S>>(markerScope(worldId), tickId);
  const open = marker?.status === "running" ? await readOpenTick<W>(deps, worldId, tickId) : null;
  if (!open) {
    forgetOpenTick(deps, worldId, tickId);
    return; // closed already
  }
  const unitResults = stepResults(deps, worldId, tickId);
  const results = await Promise.all(
    open.groups.map((keys) => Promise.all(keys.map((k) => unitResults.get(k)))),
  );
  const lost = results.flatMap((group, i) => group.some((r) => r === null) ? [i] : []);
  if (lost.length === 0 || context.queue.now() >= open.deadlineAt) {
    const closing = await closeLocked(deps, open, context, 0);
    if (closing !== "busy" && closing.closed) return;
  } else {
    await context.queue.send(
      lost.map((group) => ({ kind: "step", worldId, tickId, group, attempt: 1 })),
    );
  }
  await context.queue.send([message], { delayMs: CHECK_EVERY_MS });
}

/**
 * What stepping a unit came to: its result is stored (`count`: the units reported, when this
 * step's commit counted it), another delivery is stepping it, the tick closed, or it failed.
 */
type Stepped = { count: number | null } | "busy" | "closed" | { error: unknown };

async function stepUnit<U, P, S, W extends Clocked>(
  deps: Pick<Deps, "storage" | "sleep">,
  frame: TickFrame<W>,
  key: string,
  options: { open: OpenTick<W>; context: TickMessageContext<U, P, S, W>; final: boolean },
): Promise<Stepped> {
  const { system } = options.context;
  const unitResults = stepResults(deps, frame.world.id, frame.tickId);
  try {
    const shared = system.decode(options.open.shared);
    const needs = system.needs?.(frame, key, shared) ?? { leases: [], documents: [] };
    const stepLease: WorkLease = {
      key: `step:${frame.world.id}:${key}`,
      ttlMs: TICK_LEASE_TTL_MS,
      waitMs: 0,
      busy: () => new StepBusy(),
    };
    // The step lease, the step's own leases and documents and its result's claim as one unit
    // of work: the claim is read with them and written (and counted) in the step's commit,
    // first write wins.
    const committed: { claim?: WorkClaim } = {};
    const stepped = await withUnitOfWork(
      deps,
      { ...needs, leases: [stepLease, ...needs.leases], claim: unitResults.claimKey(key) },
      async (work, claim) => {
        const storage = work.storage;
        if (claim.stored !== null) return "done" as const;
        if (!await stillOpen(system.clock, frame, storage)) return "closed" as const;
        const unit = await system.unit(frame, key, storage);
        const outcome = await system.step(frame, unit, shared, work);
        // A step that failed partway is tried again while tries remain (its writes are keyed, so
        // what it stored already is not stored twice); the last try's failure is its report.
        if (outcome.failed && !options.final) return { error: new StepFailed() };
        claim.set({ outcome, carried: system.carried(shared) } satisfies UnitResult<S>);
        committed.claim = claim;
        return "done" as const;
      },
    );
    return stepped === "done" ? { count: committed.claim?.count ?? null } : stepped;
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
async function stillOpen<W extends Clocked>(
  clock: TickClock<W>,
  frame: TickFrame<W>,
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
