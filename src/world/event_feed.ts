/** @module Reading a world's event log: JSON pages for polling engines, a live feed for SSE. */
import { z } from "zod";
import type { Deps } from "../deps.ts";
import type { WorldId } from "../ids.ts";
import type { LoggedEvent } from "../ports/event_log.ts";
import { getWorld } from "./world.ts";

/** Most events in one page. */
export const MAX_EVENT_PAGE = 1000;

/** The query of `GET /v1/worlds/{world}/events`. */
export const EventsQuery = z.strictObject({
  after: z.coerce.number().int().min(0).default(0).meta({
    description: "Only events with a larger seq; pass the previous page's `next`",
  }),
  limit: z.coerce.number().int().min(1).max(MAX_EVENT_PAGE).default(100),
});
export type EventsQuery = z.infer<typeof EventsQuery>;

/** One logged event: seq, game time and type, plus the fields of its type. */
export const WorldEvent = z
  .looseObject({
    seq: z.number().int().min(1),
    at: z.string(),
    type: z.string().meta({
      description:
        "tick, perceived, action, moved, reaction, conversation, reflection, object_state, plan, agent_error, tick_error",
    }),
    agentId: z.string().optional(),
    tickId: z.string().optional(),
  })
  .meta({ id: "WorldEvent" });

/** A page of events, oldest first. */
export const EventPage = z
  .object({
    events: z.array(WorldEvent),
    next: z.number().int().meta({
      description: "The seq to pass as `after` for the next page (the last seq seen)",
    }),
  })
  .meta({ id: "EventPage" });
export type EventPage = z.infer<typeof EventPage>;

/**
 * Events of a world with `seq > after`, oldest first, at most `limit`.
 * @throws `world_not_found`, `store_unavailable`
 */
export async function listEvents(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  query: EventsQuery,
): Promise<EventPage> {
  await getWorld(deps, worldId);
  const events = await deps.storage.events.read(worldId, query.after, query.limit);
  return { events, next: events.at(-1)?.seq ?? query.after };
}

/** Options for {@linkcode followEvents}. */
export interface FollowOptions {
  /** Pause between reads of the log when nothing new arrived. @default 500 */
  pollMs?: number;
  /** An empty batch is yielded after this long without events (for keep-alives). @default 15000 */
  idleMs?: number;
  /** Stops the feed. */
  signal?: AbortSignal;
}

/**
 * Checks the world, then returns a live feed of its events after `after`: batches in log
 * order, read every `pollMs` while nothing is new, and an empty batch after `idleMs` of silence.
 * It ends when `signal` aborts.
 * @throws `world_not_found` (before any event).
 */
export async function followEvents(
  deps: Pick<Deps, "storage" | "sleep">,
  worldId: WorldId,
  after: number,
  options: FollowOptions = {},
): Promise<AsyncIterable<LoggedEvent[]>> {
  await getWorld(deps, worldId);
  const pollMs = options.pollMs ?? 500;
  const idlePolls = Math.max(1, Math.round((options.idleMs ?? 15_000) / pollMs));
  const signal = options.signal;
  return {
    async *[Symbol.asyncIterator]() {
      let cursor = after;
      let quiet = 0;
      while (!signal?.aborted) {
        const batch = await deps.storage.events.read(worldId, cursor, MAX_EVENT_PAGE);
        if (batch.length > 0) {
          cursor = batch.at(-1)!.seq;
          quiet = 0;
          yield batch;
          if (batch.length === MAX_EVENT_PAGE) continue;
        } else if (++quiet >= idlePolls) {
          quiet = 0;
          yield [];
        }
        if (!signal?.aborted) await deps.sleep(pollMs);
      }
    },
  };
}
