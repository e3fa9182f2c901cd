/**
 * @module Private to the queued engine: the plans of open ticks as this process read them. A
 * plan (some 300 KB for 25 agents: every agent's view) never changes while its tick is open, so
 * the messages of a tick that one process (a Workers isolate, a Deno server) handles read it
 * once. Whether the tick is still open is not known from here: a step reads the world's clock in
 * its unit of work, a close the tick's marker.
 */
import type { Deps } from "../deps.ts";
import { type OpenTick, openTickKey } from "./queued_tick.ts";

/** Plans kept per store (the least recently used dropped beyond this). */
const MAX_PLANS = 64;

const plansByStore = new WeakMap<object, Map<string, OpenTick<unknown>>>();

function plansOf(deps: Pick<Deps, "storage">): Map<string, OpenTick<unknown>> {
  let plans = plansByStore.get(deps.storage);
  if (!plans) plansByStore.set(deps.storage, plans = new Map());
  return plans;
}

/**
 * The plan of the tick `tickId` of a world: this process's copy, else the stored open tick
 * when it is that tick's (null when it is not: the tick closed, or never was).
 */
export async function readOpenTick<W>(
  deps: Pick<Deps, "storage">,
  worldId: string,
  tickId: string,
): Promise<OpenTick<W> | null> {
  const plans = plansOf(deps);
  const key = JSON.stringify([worldId, tickId]);
  const known = plans.get(key);
  if (known) {
    plans.delete(key); // most recently used last
    plans.set(key, known);
    return known as OpenTick<W>;
  }
  const open = (await deps.storage.documents.get<OpenTick<W>>(openTickKey(worldId)))?.value;
  if (open?.tickId !== tickId) return null;
  plans.set(key, open);
  if (plans.size > MAX_PLANS) plans.delete(plans.keys().next().value!);
  return open;
}

/** Drops this process's copy of a tick's plan (it closed). */
export function forgetOpenTick(
  deps: Pick<Deps, "storage">,
  worldId: string,
  tickId: string,
): void {
  plansOf(deps).delete(JSON.stringify([worldId, tickId]));
}
