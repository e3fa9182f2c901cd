/** @module The one function both cron entries (Deno.cron, Workers `scheduled`) call each minute. */
import { type Deps, type DocumentKey, type TickQueue, updateDocument } from "../../ports/mod.ts";
import { ConflictError, type World, type WorldId } from "../../domain/mod.ts";
import { lastActivity, listWorlds, recordActivity, updateWorld } from "../world/mod.ts";
import { startTick, tickWorld } from "./tick_world.ts";
import { errorFields, mapBounded } from "../engine/mod.ts";

/** The last cron run, shown by /health so operators can see the schedule is alive. */
export interface CronHeartbeat {
  /** Wall-clock ISO time the platform scheduled this run for. */
  lastScheduledAt: string;
  runs: number;
}

const heartbeatKey: DocumentKey = { collection: "meta", scope: "", id: "cron" };

/** What one world's scheduled tick came to. */
export interface ScheduledWorldTick {
  worldId: string;
  tickId: string;
  /** The clock after the tick, when it ran (or had run already for this minute). */
  now?: string;
  /** Set when the tick's steps were enqueued on the platform's queue (they run later). */
  queued?: boolean;
  /** The error code when it did not run (e.g. `conflict`: another tick still held the world). */
  error?: string;
  /** Set when the world was paused instead of ticked: nobody used it for `idlePauseMinutes`. */
  paused?: "idle";
}

/** A cron run: the heartbeat and each world's tick. */
export interface ScheduledRun extends CronHeartbeat {
  ticks: ScheduledWorldTick[];
}

/** Options for {@linkcode runScheduledTick}. */
export interface ScheduledTickOptions {
  /** Worlds ticked at once. @default 4 */
  concurrency?: number;
  /**
   * How long a world's tick waits while another tick of it (a slow earlier minute, or a
   * duplicate delivery of this one) still runs; after that the world skips this minute.
   * @default 5000
   */
  waitMs?: number;
  /**
   * The platform's queue: each world's tick is only planned here and its steps enqueued.
   * @default none: every world's agents are stepped in this call
   */
  queue?: TickQueue;
}

/**
 * Runs the cron for the wall-clock minute of `scheduledAt` (ms since epoch): records a heartbeat,
 * then advances every unpaused cron-mode world once by its `minutesPerTick` through the same
 * {@linkcode tickWorld} as `POST …/tick`, with the tick id `cron:<world>:<minute ISO>`. With the
 * platform's queue (`options.queue`) it only plans each world's tick and enqueues its steps: the
 * steps run as messages in their own invocations, and the last one to report closes the tick. A
 * duplicate delivery of the same minute therefore returns the first result instead of advancing
 * again. Manual-mode worlds are never touched. A world with no API request for its
 * `idlePauseMinutes` is paused instead, with a `world.paused` event (the idle clock starts at
 * the first run that sees the world). A world that fails is reported in `ticks` and does not
 * stop the others. A world whose daily budget is spent (on the UTC day of `scheduledAt`) coasts:
 * see {@linkcode tickWorld}.
 * @throws `store_unavailable` when the worlds cannot be listed.
 */
export async function runScheduledTick(
  deps: Deps,
  scheduledAt: number,
  options: ScheduledTickOptions = {},
): Promise<ScheduledRun> {
  const minute = new Date(Math.floor(scheduledAt / 60_000) * 60_000).toISOString();
  const beat = await recordHeartbeat(deps, new Date(scheduledAt).toISOString());
  const worlds = (await listWorlds(deps)).filter((w) => !w.clock.paused && w.clock.mode === "cron");
  const ticks = await mapBounded(worlds, options.concurrency ?? 4, async (world) => {
    const tickId = `cron:${world.id}:${minute}`;
    try {
      if (await pausedForIdleness(deps, world, scheduledAt)) {
        return { worldId: world.id, tickId, paused: "idle" as const };
      }
      if (options.queue) {
        const planned = await startTick(deps, world.id, {
          tickId,
          day: minute.slice(0, 10),
          queue: options.queue,
          scheduled: true,
        });
        return planned.status === "done"
          ? { worldId: world.id, tickId, now: planned.result.clock.now }
          : { worldId: world.id, tickId, queued: true };
      }
      const result = await tickWorld(deps, world.id, {
        tickId,
        day: minute.slice(0, 10),
        waitMs: options.waitMs ?? 5_000,
        scheduled: true,
      });
      return { worldId: world.id, tickId, now: result.clock.now };
    } catch (err) {
      return { worldId: world.id, tickId, error: errorFields(err).code };
    }
  });
  return { ...beat, ticks };
}

/** Pauses a world idle longer than its `idlePauseMinutes`; true when it did. */
async function pausedForIdleness(deps: Deps, world: World, now: number): Promise<boolean> {
  const id = world.id as WorldId;
  const idleMinutes = world.settings.idlePauseMinutes;
  if (idleMinutes === 0) return false;
  const since = await lastActivity(deps, id);
  if (since === null) {
    await recordActivity(deps, id, now);
    return false;
  }
  if (now - since < idleMinutes * 60_000) return false;
  await updateWorld(deps, id, {
    clock: { paused: true },
    why: {
      reason: "idle",
      idleMinutes,
      lastActivityAt: new Date(since).toISOString(),
      message:
        `Paused after ${idleMinutes} real minutes without an API request (settings.idlePauseMinutes); resume with PATCH /v1/worlds/${id} {"clock": {"paused": false}}`,
    },
  });
  return true;
}

async function recordHeartbeat(
  deps: Pick<Deps, "storage">,
  lastScheduledAt: string,
): Promise<CronHeartbeat> {
  // A duplicate delivery loses the compare-and-set and retries with the fresh version.
  try {
    return (await updateDocument<CronHeartbeat>(deps.storage.documents, heartbeatKey, {
      change: (current) => ({
        lastScheduledAt,
        runs: (current?.runs ?? 0) + 1,
      }),
    }))!;
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    return { lastScheduledAt, runs: -1 }; // the heartbeat is best effort: the ticks still run
  }
}

/** The last heartbeat, or null when cron never ran against this store. */
export async function readCronHeartbeat(
  deps: Pick<Deps, "storage">,
): Promise<CronHeartbeat | null> {
  return (await deps.storage.documents.get<CronHeartbeat>(heartbeatKey))?.value ?? null;
}
