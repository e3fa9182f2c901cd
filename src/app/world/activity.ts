/**
 * @module When a world last saw an API request, in real time, so the scheduler can pause
 * cron-mode worlds nobody is using (AI Town pauses idle worlds too): a town left running with
 * nobody watching spends model calls for nothing.
 */
import { type Deps, type DocumentKey, updateDocument } from "../../ports/mod.ts";
import type { WorldId } from "../../domain/mod.ts";

/** The last API activity of a world: real time, ms since the epoch. */
export interface WorldActivity {
  at: number;
}

/** The document key of a world's activity record. */
export function activityKey(worldId: string): DocumentKey {
  return { collection: "world_activity", scope: "", id: worldId };
}

/** When the world last saw a request (ms since the epoch), or null when never recorded. */
export async function lastActivity(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
): Promise<number | null> {
  return (await deps.storage.documents.get<WorldActivity>(activityKey(worldId)))?.value.at ?? null;
}

/** Records activity at `at` (ms since the epoch) unless a later time is stored already. */
export async function recordActivity(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  at: number,
): Promise<void> {
  await updateDocument<WorldActivity>(deps.storage.documents, activityKey(worldId), {
    change: (current) => (current !== null && current.at >= at ? undefined : { at }),
  });
}
