/**
 * @module What the queue's consumer runs for a tick message. Every message is safe to deliver
 * twice (see `tick_steps.ts`); the close moves the clock by compare-and-set and happens once
 * under the tick lease. A step that throws (or reports a failure) is tried again with back-off,
 * then reported as failed. The plan (and what the system loads with it) is read once per
 * process (`readOpenTick`).
 */
import type { Deps, TickMessage, TickQueue } from "../../ports/mod.ts";
import { closeLocked } from "./tick_close.ts";
import {
  fullSystem,
  type FullTickSystem,
  type TickMarker,
  type TickSystem,
} from "./tick_engine.ts";
import { stepGroup } from "./tick_steps.ts";
import { closedHere } from "./_tick_wait.ts";
import {
  CHECK_EVERY_MS,
  forgetOpenTick,
  markerScope,
  readOpenTick,
  stepResults,
} from "./tick_store.ts";
import type { Clocked } from "../../domain/mod.ts";

/** How long the message completing a tick waits for the tick lease (else its holder closes). */
const CLOSE_WAIT_MS = 1_000;

/** Back-off before the n-th try of a failed step: 1 s, 4 s, 9 s… */
export function retryDelayMs(attempt: number): number {
  return (attempt - 1) ** 2 * 1_000;
}

/** What a message is handled with: the tick's behaviour, and the queue to send more on. */
export interface TickMessageContext<S> {
  // deno-lint-ignore no-explicit-any
  system: TickSystem<any, any, S, any>;
  queue: TickQueue;
}

/**
 * Handles one delivered message. Throws only for faults the platform should redeliver on
 * (e.g. the store is down); a failing unit is retried or reported, never thrown.
 */
export async function handleTickMessage<S>(
  deps: Pick<Deps, "ids" | "storage" | "sleep">,
  message: TickMessage,
  context: TickMessageContext<S>,
): Promise<void> {
  const system = fullSystem(context.system);
  const { queue } = context;
  if (message.kind === "close") return await checkClose(deps, message, { system, queue });
  const held = await readOpenTick<Clocked>(deps, message.worldId, {
    tickId: message.tickId,
    load: system.load,
  });
  if (!held) return; // closed already: a late or repeated delivery changes nothing
  const { open } = held;
  const stepped = await stepGroup<S>(deps, {
    system,
    open,
    loaded: held.loaded,
    group: message.group,
    final: message.attempt >= open.maxAttempts,
    stepWaitMs: 0,
    deadline: () => queue.now(),
  });
  if (stepped === "retry") {
    const attempt = message.attempt + 1;
    await queue.send([{ ...message, attempt }], { delayMs: retryDelayMs(attempt) });
  } else if (typeof stepped === "object" && stepped.completes) {
    await closeLocked<S>(deps, open, { system, now: () => queue.now(), waitMs: CLOSE_WAIT_MS });
  }
}

/**
 * The tick's periodic check (and its close when every step reported before the last one's
 * message could close it, or the deadline passed): sends again the steps whose delivery was
 * lost, and itself again while the tick stays open.
 */
async function checkClose<S>(
  deps: Pick<Deps, "ids" | "storage" | "sleep">,
  message: TickMessage,
  // deno-lint-ignore no-explicit-any
  context: { system: FullTickSystem<any, any, S, any>; queue: TickQueue },
): Promise<void> {
  const { worldId, tickId } = message;
  const { queue, system } = context;
  // Closed by this process: no look at the marker (a request on the hosted backend, issue 25).
  const marker = closedHere(deps, worldId, tickId)
    ? null
    : await deps.storage.idempotency.get<TickMarker<S>>(markerScope(worldId), tickId);
  const open = marker?.status === "running"
    ? (await readOpenTick<Clocked>(deps, worldId, { tickId }))?.open
    : null;
  if (!open) {
    forgetOpenTick(deps, worldId, tickId);
    return; // closed already
  }
  const unitResults = stepResults(deps, worldId, tickId);
  const results = await Promise.all(
    open.groups.map((keys) => Promise.all(keys.map((k) => unitResults.get(k)))),
  );
  const lost = results.flatMap((group, i) => group.some((r) => r === null) ? [i] : []);
  if (lost.length === 0 || queue.now() >= open.deadlineAt) {
    const closing = await closeLocked<S>(deps, open, {
      system,
      now: () => queue.now(),
      waitMs: 0,
    });
    if (closing !== "busy" && closing.closed) return;
  } else {
    await queue.send(
      lost.map((group) => ({ kind: "step", worldId, tickId, group, attempt: 1 })),
    );
  }
  await queue.send([message], { delayMs: CHECK_EVERY_MS });
}
