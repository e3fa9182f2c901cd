/** @module The one function both cron entries (Deno.cron, Workers `scheduled`) call each minute. */
import type { Deps } from "../deps.ts";
import type { DocumentKey } from "../ports/document_store.ts";

/** The last cron run, shown by /health so operators can see the schedule is alive. */
export interface CronHeartbeat {
  /** Wall-clock ISO time the platform scheduled this run for. */
  lastScheduledAt: string;
  runs: number;
}

const heartbeatKey: DocumentKey = { collection: "meta", scope: "", id: "cron" };

/**
 * Runs one scheduled tick for the wall-clock minute `scheduledAt` (ms since epoch). It records a
 * heartbeat; stepping worlds arrives with the World issue (#6).
 * TODO(#6): advance every active, unpaused world by its minutesPerTick with a tick id derived
 * from `scheduledAt`.
 */
export async function runScheduledTick(
  deps: Pick<Deps, "storage">,
  scheduledAt: number,
): Promise<CronHeartbeat> {
  const lastScheduledAt = new Date(scheduledAt).toISOString();
  const docs = deps.storage.documents;
  // A duplicate delivery loses the compare-and-set and retries with the fresh version.
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await docs.get<CronHeartbeat>(heartbeatKey);
    if (!current) {
      const beat = { lastScheduledAt, runs: 1 };
      try {
        await docs.create(heartbeatKey, beat);
        return beat;
      } catch {
        continue;
      }
    }
    const beat = { lastScheduledAt, runs: current.value.runs + 1 };
    if (await docs.replace(heartbeatKey, beat, current.version)) return beat;
  }
  return { lastScheduledAt, runs: -1 };
}

/** The last heartbeat, or null when cron never ran against this store. */
export async function readCronHeartbeat(
  deps: Pick<Deps, "storage">,
): Promise<CronHeartbeat | null> {
  return (await deps.storage.documents.get<CronHeartbeat>(heartbeatKey))?.value ?? null;
}
