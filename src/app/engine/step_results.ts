/**
 * @module Where a tick's per-unit results live until its close: in the store's idempotency
 * keys, and the ones this process's steps claimed also in memory, so the close need not read
 * them back.
 */
import type { Deps } from "../../ports/mod.ts";
import { TICK_RECORD_TTL_MS } from "./tick_records.ts";

/**
 * Where a world's step results are kept: one scope per world, so deleting the world clears
 * every tick's (ticks are many; a scope per tick could not be found again to delete).
 */
export function stepScope(worldId: string): string {
  return `tickstep:${worldId}`;
}

/**
 * A tick's per-unit results, keyed by tick id and unit within the world's step scope, and how
 * many units have reported (counted by the commits that claim their results). The close
 * removes them once the tick's result is stored, so none outlives its tick (they hold what
 * agents perceived); should the close never come, they expire a day after they are stored
 * ({@linkcode TICK_RECORD_TTL_MS}).
 */
export function stepResults(deps: Pick<Deps, "storage">, worldId: string, tickId: string) {
  const { idempotency } = deps.storage;
  const scope = stepScope(worldId);
  const keep = { ttlMs: TICK_RECORD_TTL_MS };
  // Units are ids or "_prepare" (no "/"), so the key's last "/" splits it unambiguously; the
  // count's "#" is in no id.
  const key = (unit: string) => `${tickId}/${unit}`;
  const claimed = claimedResults(deps);
  const here = (unit: string) => `${worldId}\n${key(unit)}`;
  return {
    /** A unit's stored result: this process's copy when its commit claimed it, else read. */
    get: async <T>(unit: string): Promise<T | null> => {
      const mine = claimed.get(here(unit));
      return mine === undefined ? await idempotency.get<T>(scope, key(unit)) : JSON.parse(mine);
    },
    /** Where a unit's result is claimed (and counted), for a commit to claim it. */
    claimKey: (unit: string) => ({ scope, key: key(unit), counter: key("#reported"), ...keep }),
    /**
     * Keeps the result this process's commit just claimed (first write wins, so it is the one
     * stored): the close then reads it from here, not the store (issue 25: a KV read per unit).
     */
    claimed: (unit: string, value: unknown) => {
      if (claimed.size >= MAX_CLAIMED) claimed.clear();
      claimed.set(here(unit), JSON.stringify(value));
    },
    /** Forgets the results of these units, the preparation's and their count. */
    remove: async (units: readonly string[]) => {
      for (const unit of units) claimed.delete(here(unit));
      await idempotency.remove(scope, [...units, "_prepare", "#reported"].map(key));
    },
  };
}

/** Results kept per store (all forgotten when full; a tick's close then reads them). */
const MAX_CLAIMED = 20_000;

const claimedByStore = new WeakMap<object, Map<string, string>>();

/** The step results this process claimed, as JSON (what the store keeps), by world and key. */
function claimedResults(deps: Pick<Deps, "storage">): Map<string, string> {
  let claimed = claimedByStore.get(deps.storage);
  if (!claimed) claimedByStore.set(deps.storage, claimed = new Map());
  return claimed;
}
