/** @module Port: the audit log, one entry per write request, kept for a number of days. */

/** One audited request. */
export interface AuditEntry {
  /** Assigned by the log: sortable, unique. */
  id: string;
  /** Wall-clock ISO time the request finished. */
  at: string;
  method: string;
  /** The route template, e.g. `/v1/worlds/{world}/tick` (the raw path when none matched). */
  route: string;
  /** The API key id; null for the admin key (or a server without one). */
  keyId: string | null;
  worldId: string | null;
  agentId: string | null;
  status: number;
  requestId: string;
  /** Wall time of the request in ms. */
  ms: number;
}

/** Filters and paging of {@linkcode AuditLog.list}. */
export interface AuditQuery {
  worldId?: string;
  keyId?: string;
  /** Continue after this cursor (from a previous page). */
  cursor?: string;
  /** @default 100 */
  limit?: number;
}

/** A page of entries, newest first, and the cursor of the next page (null at the end). */
export interface AuditPage {
  entries: AuditEntry[];
  cursor: string | null;
}

/** Append-only audit entries. Throws `store_unavailable` when the backend fails. */
export interface AuditLog {
  /**
   * Appends an entry (its `id` is assigned here) and drops entries older than `retentionDays`.
   * Returns the stored entry.
   */
  append(entry: Omit<AuditEntry, "id">, options: { retentionDays: number }): Promise<AuditEntry>;

  /** Entries newest first, filtered by world and key; expired entries are never returned. */
  list(query: AuditQuery, options: { retentionDays: number; now: number }): Promise<AuditPage>;
}
