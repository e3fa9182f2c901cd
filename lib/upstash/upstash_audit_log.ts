/**
 * @module The hosted AuditLog: sorted sets in Upstash Redis, one for every entry and one per
 * world and per key. Every member has score 0 and starts with the entry's sortable id, so
 * lexicographic ranges page by time and drop expired entries.
 */
import type { AuditEntry, AuditLog, AuditPage, AuditQuery } from "../../src/ports/mod.ts";
import { auditCutoffId, auditEntryId } from "../access/audit_ids.ts";
import { redisCall, type RedisClient, unexpectedReply } from "./redis_calls.ts";
import { RedisKeys } from "./layout.ts";

/** Configuration of {@linkcode UpstashAuditLog}. */
export interface UpstashAuditLogConfig {
  redis: RedisClient;
  /** Prepended to every key, so deployments can share a database. */
  keyPrefix: string;
  /** Wall clock in ms; injectable for tests. @default Date.now */
  now?: () => number;
}

const DAY_MS = 86_400_000;
const SEPARATOR = "|";

/** The audit log in Upstash Redis. */
export class UpstashAuditLog implements AuditLog {
  readonly #redis: RedisClient;
  readonly #keys: RedisKeys;
  readonly #now: () => number;

  constructor(config: UpstashAuditLogConfig) {
    this.#redis = config.redis;
    this.#keys = new RedisKeys(config.keyPrefix);
    this.#now = config.now ?? Date.now;
  }

  append(
    entry: Omit<AuditEntry, "id">,
    options: { retentionDays: number },
  ): Promise<AuditEntry> {
    return redisCall("append to the audit log", async () => {
      const now = this.#now();
      const stored: AuditEntry = { id: auditEntryId(now), ...entry };
      const member = `${stored.id}${SEPARATOR}${JSON.stringify(stored)}`;
      const cutoff = `(${auditCutoffId(now - options.retentionDays * DAY_MS)}`;
      const keys = [this.#key("all")];
      if (stored.worldId !== null) keys.push(this.#key("world", stored.worldId));
      if (stored.keyId !== null) keys.push(this.#key("key", stored.keyId));
      const tx = this.#redis.multi();
      for (const key of keys) {
        tx.zadd(key, { score: 0, member });
        tx.zremrangebylex(key, "-", cutoff);
        tx.pexpire(key, options.retentionDays * DAY_MS);
      }
      await tx.exec();
      return stored;
    });
  }

  list(query: AuditQuery, options: { retentionDays: number; now: number }): Promise<AuditPage> {
    return redisCall("read the audit log", async () => {
      const limit = query.limit ?? 100;
      const key = query.keyId !== undefined
        ? this.#key("key", query.keyId)
        : query.worldId !== undefined
        ? this.#key("world", query.worldId)
        : this.#key("all");
      const min: `[${string}` = `[${auditCutoffId(options.now - options.retentionDays * DAY_MS)}`;
      const entries: AuditEntry[] = [];
      let max: `(${string}` | "+" = query.cursor !== undefined ? `(${query.cursor}` : "+";
      // Read in pages until the filter has kept enough (the key filter is exact already).
      while (entries.length <= limit) {
        const reply: unknown = await this.#redis.zrange(key, max, min, {
          byLex: true,
          rev: true,
          offset: 0,
          count: 200,
        });
        if (!Array.isArray(reply)) unexpectedReply("read the audit log");
        for (const member of reply) {
          const text = String(member);
          const entry = JSON.parse(text.slice(text.indexOf(SEPARATOR) + 1)) as AuditEntry;
          if (query.worldId !== undefined && entry.worldId !== query.worldId) continue;
          entries.push(entry);
          if (entries.length > limit) break;
        }
        if (reply.length < 200) break;
        max = `(${String(reply[reply.length - 1])}`;
      }
      const page = entries.slice(0, limit);
      return { entries: page, cursor: entries.length > limit ? page[page.length - 1].id : null };
    });
  }

  #key(...parts: string[]): string {
    return this.#keys.audit(parts);
  }
}
