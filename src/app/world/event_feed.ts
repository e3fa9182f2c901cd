/** @module Reading a world's event log: JSON pages for polling engines, a live feed for SSE. */
import { z } from "zod";
import type { Deps, LoggedEvent } from "../../ports/mod.ts";
import { AgentId, type WorldId } from "../../domain/mod.ts";
import { getWorld } from "./world_store.ts";
import { ofExistingWorld } from "./world_reads.ts";

/** Most events in one page. */
export const MAX_EVENT_PAGE = 1000;

/** Events read per filtered page before it is returned short (its `next` still moves on). */
const MAX_SCAN = 10 * MAX_EVENT_PAGE;

const EVENT_TYPES = /^[a-z][a-z0-9_.]{0,63}(,[a-z][a-z0-9_.]{0,63}){0,49}$/;

/** The query of `GET /v1/worlds/{world}/events`. */
export const EventsQuery = z
  .strictObject({
    after: z.coerce.number().int().min(0).optional().meta({
      description: "Only events with a larger seq; pass the previous page's `next`",
    }),
    cursor: z.string().regex(/^\d{1,15}$/, "A cursor is a previous page's next").optional().meta({
      description: "Same as `after`: the previous page's `next`",
    }),
    from: z.enum(["start", "latest"]).optional().meta({
      description:
        "`latest`: start after the newest event (only what happens from now on); default `start`",
    }),
    agent: AgentId.optional().meta({ description: "Only events of this agent" }),
    type: z
      .string()
      .regex(EVENT_TYPES, "Give event types separated by commas, e.g. conversation,reflection")
      .optional()
      .meta({
        description: "Only events of these types (comma-separated), e.g. `conversation,reflection`",
      }),
    limit: z.coerce.number().int().min(1).max(MAX_EVENT_PAGE).default(100),
  })
  .refine(
    (q) =>
      [q.after !== undefined, q.cursor !== undefined, q.from === "latest"].filter(Boolean).length <=
        1,
    { message: "Give at most one of after, cursor and from=latest", path: ["from"] },
  );
export type EventsQuery = z.infer<typeof EventsQuery>;

/** Which events a reader wants. */
export interface EventFilter {
  agent?: string;
  type?: readonly string[];
}

/** The filter a query asks for. */
export function eventFilter(query: Pick<EventsQuery, "agent" | "type">): EventFilter {
  return { agent: query.agent, type: query.type?.split(",") };
}

/** Whether an event passes a filter. */
export function matchesFilter(event: LoggedEvent, filter: EventFilter): boolean {
  return (filter.agent === undefined || event.agentId === filter.agent) &&
    (filter.type === undefined || filter.type.length === 0 || filter.type.includes(event.type));
}

/**
 * The seq a reader starts after: `from=latest` is the newest event's, a cursor or `after` the
 * previous page's `next`, otherwise 0.
 */
export async function startSeq(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  query: Pick<EventsQuery, "after" | "cursor" | "from">,
): Promise<number> {
  if (query.from === "latest") return await deps.storage.events.latest(worldId);
  if (query.cursor !== undefined) return Number(query.cursor);
  return query.after ?? 0;
}

/** One logged event: seq, game time and type, plus the fields of its type. */
export const WorldEvent = z
  .looseObject({
    seq: z.number().int().min(1),
    at: z.string(),
    type: z.string().meta({
      description:
        "tick, perceived, action, action.requested (a step that is one of the game's actions: id, name, arguments), action.dropped (a game action the model chose for a step that failed the check: name, arguments when readable, reason), moved, reaction, conversation, reflection, object_state, plan, agent_error, tick_error",
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
      description:
        "The seq to pass as `cursor` (or `after`) for the next page: the last seq read, filtered out or not",
    }),
    latest: z.number().int().meta({
      description: "The newest event's seq in the whole log (0 when it is empty)",
    }),
  })
  .meta({ id: "EventPage" });
export type EventPage = z.infer<typeof EventPage>;

/**
 * Events of a world after the query's start, oldest first, at most `limit`, filtered by agent
 * and type. A filtered page reads at most 10,000 events; `next` is where reading stopped, so a
 * page may be short (even empty) while more events follow.
 * @throws `world_not_found`, `store_unavailable`
 */
export const listEvents = ofExistingWorld<EventsQuery, EventPage>(
  async (deps, worldId, query) => {
    const filter = eventFilter(query);
    const filtered = filter.agent !== undefined || (filter.type?.length ?? 0) > 0;
    let cursor = await startSeq(deps, worldId, query);
    const events: LoggedEvent[] = [];
    for (let scanned = 0; events.length < query.limit && scanned < MAX_SCAN;) {
      const want = filtered ? MAX_EVENT_PAGE : query.limit - events.length;
      const batch = await deps.storage.events.read(worldId, cursor, want);
      for (const event of batch) {
        cursor = event.seq;
        if (matchesFilter(event, filter) && events.push(event) === query.limit) break;
      }
      scanned += batch.length;
      if (batch.length < want) break;
    }
    return { events, next: cursor, latest: await deps.storage.events.latest(worldId) };
  },
);

/** Options for {@linkcode followEvents}. */
export interface FollowOptions {
  /** The feed starts after this sequence number. @default 0 (from the first event) */
  after?: number;
  /**
   * Longest wait between reads of the log while nothing new arrived. Appends made by this
   * process wake the feed at once; this bounds how late appends by other processes show up,
   * and what an idle feed costs: one read per `pollMs`. @default 5000
   */
  pollMs?: number;
  /** An empty batch is yielded after this long without events (for keep-alives). @default 15000 */
  idleMs?: number;
  /** Stops the feed. */
  signal?: AbortSignal;
  /** Only events passing it are yielded (the position still moves past the others). */
  filter?: EventFilter;
}

/**
 * Checks the world, then returns a live feed of its events after `options.after`: batches in log
 * order, and an empty batch after `idleMs` of silence. Between reads it waits for an append by
 * this process (`EventLog.waitForAppend`), at most `pollMs`, so an idle feed reads storage once
 * per `pollMs`, not continuously. It ends when `signal` aborts.
 * @throws `world_not_found` (before any event).
 */
export async function followEvents(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  options: FollowOptions = {},
): Promise<AsyncIterable<LoggedEvent[]>> {
  await getWorld(deps, worldId);
  const pollMs = options.pollMs ?? 5_000;
  const idlePolls = Math.max(1, Math.round((options.idleMs ?? 15_000) / pollMs));
  const signal = options.signal;
  const events = deps.storage.events;
  const filter = options.filter;
  return {
    async *[Symbol.asyncIterator]() {
      let cursor = options.after ?? 0;
      let quiet = 0;
      while (!signal?.aborted) {
        const batch = await events.read(worldId, cursor, MAX_EVENT_PAGE);
        if (batch.length > 0) {
          cursor = batch.at(-1)!.seq;
          quiet = 0;
          const wanted = filter ? batch.filter((e) => matchesFilter(e, filter)) : batch;
          if (wanted.length > 0) yield wanted;
          if (batch.length === MAX_EVENT_PAGE) continue;
        } else if (++quiet >= idlePolls) {
          quiet = 0;
          yield [];
        }
        if (!signal?.aborted) {
          await events.waitForAppend(worldId, cursor, { timeoutMs: pollMs, signal });
        }
      }
    },
  };
}
