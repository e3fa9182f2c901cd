/** @module The hosted EventLog: each world's events in an Upstash Redis sorted set by sequence number. */
import type { EventLog, LoggedEvent, NewEvent } from "../../src/ports/mod.ts";
import { AppendBell, type BellWaitOptions } from "../append_bell.ts";
import { RedisKeys } from "./layout.ts";
import { redisCall, type RedisClient, unexpectedReply } from "./redis_calls.ts";
import { appendEvents } from "./scripts/append_events.ts";
import { ScriptRunner } from "./scripts/script.ts";

/** Configuration of {@linkcode UpstashEventLog}. */
export interface UpstashEventLogConfig {
  redis: RedisClient;
  /** Prepended to every key, so deployments can share a database. */
  keyPrefix: string;
}

/**
 * Per world, a counter (INCRBY) and a sorted set scored by `seq` whose members are the events'
 * JSON. `append` is one script (atomic, all or none); `read` is one ZRANGE BYSCORE. Throws
 * `store_unavailable` when Upstash fails.
 */
export class UpstashEventLog implements EventLog {
  readonly #redis: RedisClient;
  readonly #keys: RedisKeys;
  readonly #scripts: ScriptRunner;
  readonly #bell = new AppendBell();

  constructor(config: UpstashEventLogConfig) {
    this.#redis = config.redis;
    this.#keys = new RedisKeys(config.keyPrefix);
    this.#scripts = new ScriptRunner(config.redis);
  }

  async append(worldId: string, events: readonly NewEvent[]): Promise<LoggedEvent[]> {
    if (events.length === 0) return [];
    const bodies = events.map((event) => {
      const { seq: _ignored, ...rest } = event as NewEvent & { seq?: unknown };
      return JSON.stringify(rest);
    });
    const first = await this.#scripts.run(appendEvents, { keys: this.#keys, worldId, bodies });
    this.#bell.ring(worldId, first + bodies.length - 1);
    return bodies.map((body, i) => ({ ...JSON.parse(body), seq: first + i }) as LoggedEvent);
  }

  /** Waits for an append by this process (see the port); no Redis call. */
  waitForAppend(worldId: string, after: number, options: BellWaitOptions): Promise<void> {
    return this.#bell.wait(worldId, after, options);
  }

  read(worldId: string, after: number, limit: number): Promise<LoggedEvent[]> {
    const count = Math.floor(limit);
    if (count <= 0) return Promise.resolve([]);
    return redisCall("read events", async () => {
      const reply: unknown = await this.#redis.zrange(
        this.#key(worldId, "log"),
        `(${Math.floor(after)}`,
        "+inf",
        { byScore: true, offset: 0, count },
      );
      if (!Array.isArray(reply)) unexpectedReply("read events");
      return reply.map((json) => JSON.parse(String(json)) as LoggedEvent);
    });
  }

  latest(worldId: string): Promise<number> {
    return redisCall("read the latest event", async () => {
      const reply: unknown = await this.#redis.get(this.#key(worldId, "seq"));
      return reply === null ? 0 : Number(reply);
    });
  }

  /**
   * Removes all of a world's events and its counter (one DEL of both keys), or one
   * agent's events: read the log, then ZREM those members (the counter stays).
   */
  remove(worldId: string, options: { agentId?: string } = {}): Promise<number> {
    const log = this.#key(worldId, "log");
    return redisCall("remove events", async () => {
      if (options.agentId === undefined) {
        const count = Number(await this.#redis.zcard(log));
        await this.#redis.del(log, this.#key(worldId, "seq"));
        this.#bell.reset(worldId);
        return count;
      }
      const members: unknown = await this.#redis.zrange(log, 0, -1);
      if (!Array.isArray(members)) unexpectedReply("remove events");
      const doomed = members.map(String).filter((m) =>
        (JSON.parse(m) as LoggedEvent).agentId === options.agentId
      );
      for (let i = 0; i < doomed.length; i += 500) {
        await this.#redis.zrem(log, ...doomed.slice(i, i + 500));
      }
      return doomed.length;
    });
  }

  #key(worldId: string, part: "seq" | "log"): string {
    return this.#keys.events(worldId, part);
  }
}
