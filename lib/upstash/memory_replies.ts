/**
 * @module Decoding the hosted memory store's replies (records, id lists)
 * and its pages with their cursors.
 */
import {
  gameMinutes,
  inStatus,
  type MemoryId,
  type MemoryKind,
  type MemoryRecord,
  type MemoryStatus,
  SimulacraError,
} from "../../src/domain/mod.ts";
import type { MemoryPage } from "../../src/ports/mod.ts";
import { pairs, unexpectedReply } from "./redis_calls.ts";

interface Cursor {
  order: "asc" | "desc";
  kind: MemoryKind | null;
  id: string;
  score: number;
}

export function encodeCursor(cursor: Cursor): string {
  const json = JSON.stringify([cursor.order, cursor.kind, cursor.id, cursor.score]);
  return btoa(json).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function decodeCursor(text: string, order: "asc" | "desc", kind: MemoryKind | null): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(atob(text.replaceAll("-", "+").replaceAll("_", "/")));
  } catch {
    parsed = null;
  }
  if (
    !Array.isArray(parsed) || parsed.length !== 4 || typeof parsed[2] !== "string" ||
    typeof parsed[3] !== "number"
  ) {
    throw new SimulacraError(
      "invalid_request",
      "Cannot read the cursor: pass the `next` value of the previous page unchanged",
    );
  }
  if (parsed[0] !== order || parsed[1] !== kind) {
    throw new SimulacraError(
      "invalid_request",
      "Cannot use the cursor with another order or kind: keep the options of the first page",
    );
  }
  return { order, kind, id: parsed[2], score: parsed[3] };
}

/** How a page was read: its order and kind, its start time, and the status its records keep. */
export interface PageFilter {
  order: "asc" | "desc";
  kind: MemoryKind | null;
  since: number | null;
  /** Keeps only the records of this status (read from a set of every status). */
  status: MemoryStatus;
}

/**
 * A page of `read` records (those of the filter's status); `more` when the store holds more
 * after them. A page of newest-first order since a minute ends at the first record older than
 * it; otherwise the next page starts after the last record read, kept or not.
 */
export function pageOf(read: MemoryRecord[], more: boolean, filter: PageFilter): MemoryPage {
  const { order, kind, since, status } = filter;
  const recent = since === null ? read : read.filter((r) => gameMinutes(r.createdAt) >= since);
  const last = recent.at(-1);
  const next = more && last && recent.length === read.length
    ? encodeCursor({ order, kind, id: last.id, score: gameMinutes(last.createdAt) })
    : null;
  return { memories: recent.filter((r) => inStatus(r, status)), next };
}

export function idList(reply: unknown, action: string): MemoryId[] {
  if (!Array.isArray(reply)) unexpectedReply(action);
  return reply.map((id) => String(id) as MemoryId);
}

function parseField(raw: unknown): unknown {
  return JSON.parse(String(raw));
}

export function decodeRecord(hash: unknown): MemoryRecord | null {
  const fields = pairs(hash, "read memories");
  if (fields.length === 0) return null;
  const record: Record<string, unknown> = {};
  for (const [field, value] of fields) record[field] = parseField(value);
  return record as unknown as MemoryRecord;
}
