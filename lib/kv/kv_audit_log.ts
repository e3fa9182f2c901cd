/**
 * @module The embedded AuditLog: entries in Deno KV under sortable ids, each also indexed by
 * world and by key, all expiring after the retention period; entries appended together are
 * committed together.
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
/** At most three writes each, well inside Deno KV's 1,000 mutations and 800 KB per commit. */
const ENTRIES_PER_COMMIT = 100;

/** The audit log in Deno KV. */
export class KvAuditLog implements AuditLog {
  readonly #kv: Deno.Kv;
  readonly #now: () => number;
  readonly #waiting: {
    stored: AuditEntry;
    expireIn: number;
    committed: PromiseWithResolvers<void>;
  }[] = [];
  #writing: Promise<void> | null = null;

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
      const committed = Promise.withResolvers<void>();
      this.#waiting.push({ stored, expireIn: options.retentionDays * DAY_MS, committed });
      this.#writing ??= this.#write();
      await committed.promise;
      return stored;
    });
  }

  /**
   * Commits the waiting entries, many to a commit, until none wait: entries appended while a
   * commit is under way go together in the next one. So a burst of writes ending at once (300
   * slow requests answered 408 together) costs a few commits, not 300 queued in front of every
   * other read and write of the store.
   */
  async #write(): Promise<void> {
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, ENTRIES_PER_COMMIT);
      try {
        const op = this.#kv.atomic();
        for (const { stored, expireIn } of batch) {
          op.set(["audit", "all", stored.id], stored, { expireIn });
          if (stored.worldId !== null) {
            op.set(["audit", "world", stored.worldId, stored.id], stored, { expireIn });
          }
          if (stored.keyId !== null) {
            op.set(["audit", "key", stored.keyId, stored.id], stored, { expireIn });
          }
        }
        await op.commit();
        for (const { committed } of batch) committed.resolve();
      } catch (err) {
        for (const { committed } of batch) committed.reject(err);
      }
    }
    this.#writing = null;
  }

  /** Resolves once the entries appended so far are committed (or failed). */
  async settled(): Promise<void> {
    while (this.#writing) await this.#writing;
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
