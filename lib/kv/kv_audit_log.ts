/**
 * @module The embedded AuditLog: entries in Deno KV under sortable ids, each also indexed by
 * world and by key, all expiring after the retention period.
 */
import type { AuditEntry, AuditLog, AuditPage, AuditQuery } from "../../src/ports/mod.ts";
import { auditCutoffId, auditEntryId } from "../access/audit_ids.ts";
import { guard } from "./_kv_support.ts";

/** Configuration of {@linkcode KvAuditLog}. */
export interface KvAuditLogOptions {
  /** An open Deno KV; the caller closes it. */
  kv: Deno.Kv;
  /** Wall clock in ms; injectable for tests. @default Date.now */
  now?: () => number;
}

const DAY_MS = 86_400_000;

/** The audit log in Deno KV. */
export class KvAuditLog implements AuditLog {
  readonly #kv: Deno.Kv;
  readonly #now: () => number;

  constructor(options: KvAuditLogOptions) {
    this.#kv = options.kv;
    this.#now = options.now ?? Date.now;
  }

  append(
    entry: Omit<AuditEntry, "id">,
    options: { retentionDays: number },
  ): Promise<AuditEntry> {
    return guard("append to the audit log", async () => {
      const stored: AuditEntry = { id: auditEntryId(this.#now()), ...entry };
      const expireIn = options.retentionDays * DAY_MS;
      const op = this.#kv.atomic().set(["audit", "all", stored.id], stored, { expireIn });
      if (stored.worldId !== null) {
        op.set(["audit", "world", stored.worldId, stored.id], stored, { expireIn });
      }
      if (stored.keyId !== null) {
        op.set(["audit", "key", stored.keyId, stored.id], stored, { expireIn });
      }
      await op.commit();
      return stored;
    });
  }

  list(query: AuditQuery, options: { retentionDays: number; now: number }): Promise<AuditPage> {
    return guard("read the audit log", async () => {
      const limit = query.limit ?? 100;
      // The narrowest index, then the other filter in memory.
      const prefix: Deno.KvKey = query.keyId !== undefined
        ? ["audit", "key", query.keyId]
        : query.worldId !== undefined
        ? ["audit", "world", query.worldId]
        : ["audit", "all"];
      const cutoff = auditCutoffId(options.now - options.retentionDays * DAY_MS);
      const selector: Deno.KvListSelector = query.cursor !== undefined
        ? { start: [...prefix, cutoff], end: [...prefix, query.cursor] }
        : { start: [...prefix, cutoff], end: [...prefix, "\uffff"] };
      const entries: AuditEntry[] = [];
      for await (const { value } of this.#kv.list<AuditEntry>(selector, { reverse: true })) {
        if (query.worldId !== undefined && value.worldId !== query.worldId) continue;
        entries.push(value);
        if (entries.length > limit) break;
      }
      const more = entries.length > limit;
      const page = entries.slice(0, limit);
      return { entries: page, cursor: more ? page[page.length - 1].id : null };
    });
  }
}
