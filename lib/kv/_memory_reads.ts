/**
 * @module Index reads of an agent's cached memory stream: pages by creation time with their
 * cursors, the leaders of an index, and retrieval's candidates.
 */
import {
  gameMinutes,
  isLive,
  type MemoryId,
  type MemoryKind,
  SimulacraError,
} from "../../src/domain/mod.ts";
import type {
  IndexLeaders,
  ListMemoriesOptions,
  MemoryCandidates,
  MemoryInclusion,
  MemoryIndex,
  MemoryPage,
} from "../../src/ports/mod.ts";
import type { SortKey } from "./_sorted_index.ts";
import type { AgentState, Entry } from "./_memory_state.ts";

function encodeCursor(entry: Entry): string {
  return btoa(JSON.stringify([entry.record.createdAt, entry.record.id]))
    .replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

function decodeCursor(cursor: string): SortKey {
  try {
    const parsed = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")));
    if (
      Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === "string" &&
      typeof parsed[1] === "string"
    ) {
      return [parsed[0], parsed[1]];
    }
  } catch {
    // Reported below.
  }
  throw new SimulacraError(
    "invalid_request",
    "Cannot read the page cursor: pass the `next` value of the previous page unchanged",
  );
}

/**
 * The cursor a page starts after, or null for the first page (checked before the agent loads).
 *
 * @throws {SimulacraError} `invalid_request` on a limit outside 1-1000 or a malformed cursor.
 */
export function pageStart(options: ListMemoriesOptions): SortKey | null {
  const { limit, cursor } = options;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot list ${limit} memories per page: use 1-1000`,
    );
  }
  return cursor === undefined ? null : decodeCursor(cursor);
}

/** The page of `options` that starts strictly after `after` (from {@linkcode pageStart}). */
export function pageOf(
  state: AgentState,
  options: ListMemoriesOptions,
  after: SortKey | null,
): MemoryPage {
  const { limit, kind } = options;
  const index = (kind === undefined ? state.created : state.kinds.get(kind))?.[
    options.status ?? "live"
  ];
  if (index === undefined) return { memories: [], next: null };
  // The first entry created at or after `since` (ids are never empty, so "" sorts first).
  const first = options.since === undefined ? 0 : index.lowerBound([options.since, ""]);
  let window: Entry[];
  if ((options.order ?? "desc") === "asc") {
    const start = Math.max(first, after === null ? 0 : index.upperBound(after));
    window = index.slice(start, start + limit + 1);
  } else {
    const end = after === null ? index.size : index.lowerBound(after);
    window = index.slice(Math.max(first, end - limit - 1), Math.max(first, end)).reverse();
  }
  const page = window.slice(0, limit);
  return {
    memories: page.map((e) => e.record),
    next: window.length > limit ? encodeCursor(page[page.length - 1]) : null,
  };
}

/** The top `n` ids of an index with their scores, and the index's lowest score. */
export function leadersOf(state: AgentState, index: MemoryIndex, n: number): IndexLeaders {
  const sorted = index === "created"
    ? state.created.live
    : index === "lastAccessed"
    ? state.accessed
    : state.importance;
  const score = (e: Entry) =>
    index === "importance"
      ? e.record.importance
      : gameMinutes(index === "created" ? e.record.createdAt : e.record.lastAccessedAt);
  const count = Math.max(0, Math.min(Math.floor(n), sorted.size));
  const top = count > 0 ? sorted.slice(sorted.size - count).reverse() : [];
  return {
    ids: top.map((e) => e.record.id),
    scores: top.map(score),
    lowest: sorted.size > 0 ? score(sorted.at(0)) : null,
  };
}

/** The heads as {@linkcode leadersOf} reads them, and the rank fields of the candidates. */
export function candidatesOf(
  state: AgentState,
  ids: readonly MemoryId[],
  options: { heads: number; kinds?: readonly MemoryKind[]; include?: MemoryInclusion },
): MemoryCandidates {
  const recent = leadersOf(state, "lastAccessed", options.heads);
  const important = leadersOf(state, "importance", options.heads);
  const union = new Set([...ids, ...recent.ids, ...important.ids]);
  const { include = {} } = options;
  const fields = [...union].flatMap((id) => {
    const r = state.byId.get(id)?.record;
    return r === undefined || (options.kinds !== undefined && !options.kinds.includes(r.kind)) ||
        (!include.archived && !isLive(r)) || (!include.superseded && r.supersededBy !== undefined)
      ? []
      : [{
        id: r.id,
        createdAt: r.createdAt,
        accessedMinutes: gameMinutes(r.lastAccessedAt),
        importance: r.importance,
      }];
  });
  return { recent, important, fields };
}
