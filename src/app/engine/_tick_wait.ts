/**
 * @module Waiting for a tick's close. A tick this process closes is told to this process's
 * waiters at once: a waiting `POST …/tick` whose steps this process ran does not look at the
 * marker (one store request a look; issue 25). Ticks closed by another process are seen by
 * looking at the marker, after 1 s, then every 2 s.
 */
import type { Deps } from "../../ports/mod.ts";
import type { WorldId } from "../../domain/mod.ts";
import { busy, markerError, type TickMarker, type TickRecord } from "./tick_engine.ts";
import { markerScope } from "./tick_store.ts";

/**
 * Waits until a tick id has closed and returns its result.
 * @throws the tick's failure; `conflict` when it is still open after `waitMs`.
 */
export async function awaitTick<S>(
  deps: Pick<Deps, "storage" | "sleep">,
  worldId: WorldId,
  options: { tickId: string; waitMs: number; pollMs?: number },
): Promise<TickRecord<S>> {
  const { tickId } = options;
  // Watching starts before any look, so a close between two looks is never missed.
  const watch = watchTickClose<S>(deps, worldId, tickId);
  try {
    let poll = options.pollMs ?? 1_000;
    for (let waited = 0;; poll = Math.min(poll * 2, 2_000)) {
      await deps.sleep(poll, watch.signal);
      waited += poll;
      const marker = watch.closed() ??
        await deps.storage.idempotency.get<TickMarker<S>>(markerScope(worldId), tickId);
      if (marker?.status === "done") return marker.result;
      if (marker?.status === "failed") throw markerError(marker);
      if (waited >= options.waitMs) throw busy(tickId, worldId);
    }
  } finally {
    watch.stop();
  }
}

/** A wait for one tick's close: `signal` aborts when it closes here, `closed` then says how. */
interface CloseWatch<S> {
  readonly signal: AbortSignal;
  closed(): TickMarker<S> | undefined;
  /** Stops watching (always call it, closed or not). */
  stop(): void;
}

interface Watcher {
  controller: AbortController;
  marker?: TickMarker<unknown>;
}

const watchersByStore = new WeakMap<object, Map<string, Set<Watcher>>>();

function watchersOf(deps: Pick<Deps, "storage">): Map<string, Set<Watcher>> {
  let watchers = watchersByStore.get(deps.storage);
  if (!watchers) watchersByStore.set(deps.storage, watchers = new Map());
  return watchers;
}

function keyOf(worldId: string, tickId: string): string {
  return JSON.stringify([worldId, tickId]);
}

/** Starts watching for this process closing the tick (before the first look at its marker). */
function watchTickClose<S>(
  deps: Pick<Deps, "storage">,
  worldId: string,
  tickId: string,
): CloseWatch<S> {
  const all = watchersOf(deps);
  const key = keyOf(worldId, tickId);
  const watcher: Watcher = { controller: new AbortController() };
  let set = all.get(key);
  if (!set) all.set(key, set = new Set());
  set.add(watcher);
  return {
    signal: watcher.controller.signal,
    closed: () => watcher.marker as TickMarker<S> | undefined,
    stop() {
      const current = all.get(key);
      current?.delete(watcher);
      if (current?.size === 0) all.delete(key);
    },
  };
}

/** Ticks this process closed, remembered per store (the oldest forgotten beyond this). */
const MAX_CLOSED = 64;
const closedByStore = new WeakMap<object, Set<string>>();

/**
 * Whether this process closed the tick (recently): a closed tick never opens again, so its
 * periodic check needs no look at the marker.
 */
export function closedHere(deps: Pick<Deps, "storage">, worldId: string, tickId: string): boolean {
  return closedByStore.get(deps.storage)?.has(keyOf(worldId, tickId)) ?? false;
}

/** Tells this process's waiters that the tick closed, once its marker is stored. */
export function tellTickClosed<S>(
  deps: Pick<Deps, "storage">,
  marker: TickMarker<S>,
  at: { worldId: string; tickId: string },
): void {
  const key = keyOf(at.worldId, at.tickId);
  let closed = closedByStore.get(deps.storage);
  if (!closed) closedByStore.set(deps.storage, closed = new Set());
  closed.add(key);
  if (closed.size > MAX_CLOSED) closed.delete(closed.values().next().value!);
  const all = watchersOf(deps);
  const set = all.get(key);
  if (!set) return;
  all.delete(key);
  for (const watcher of set) {
    watcher.marker = marker;
    watcher.controller.abort();
  }
}
