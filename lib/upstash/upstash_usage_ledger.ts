/** @module The hosted UsageLedger: per-world usage counters in an Upstash Redis hash. */
import { SimulacraError, type UsageRecord, worldSubject } from "../../src/domain/mod.ts";
import type {
  Spend,
  SpendWrite,
  UsageCounts,
  UsageLedger,
  UsageTotals,
} from "../../src/ports/mod.ts";
import { pairs, redisCall, type RedisClient } from "./redis_calls.ts";
import { RedisKeys } from "./layout.ts";
import { ReadBatcher } from "./read_batcher.ts";
import { ScriptRunner } from "./scripts/script.ts";
import { addCounts } from "./scripts/add_counts.ts";

/** Configuration of {@linkcode UpstashUsageLedger}. */
export interface UpstashUsageLedgerConfig {
  redis: RedisClient;
  /** Prepended to every key, so deployments can share a database. */
  keyPrefix: string;
  /** The pipeline budget reads share with the other stores' reads. @default its own */
  reads?: ReadBatcher;
}

const METRICS = ["calls", "promptTokens", "completionTokens", "cachedPromptTokens"] as const;

/** How long a counter write waits for a request to go out with before it goes alone. */
const COUNTER_WAIT_MS = 20;

/**
 * One hash per world; each field is a JSON array `[group, name, metric]` (group "total",
 * "agent" or "operation"), so any agent id or operation name round-trips. `add` runs every
 * HINCRBY in one script: the totals, agent and operation counts move together and concurrent
 * adds never lose an increment. Each counter write's script goes out ahead of the next request
 * of the shared pipeline (a step's reads or commit), or alone after 20 ms when none does: it was
 * a request of its own per 20 ms of model calls, two per call before that (issue 25). Budget
 * reads queued after a write see it. Throws `store_unavailable` when Upstash fails.
 */
export class UpstashUsageLedger implements UsageLedger {
  readonly #redis: RedisClient;
  readonly #keys: RedisKeys;
  readonly #reads: ReadBatcher;
  readonly #scripts: ScriptRunner;

  constructor(config: UpstashUsageLedgerConfig) {
    this.#redis = config.redis;
    this.#keys = new RedisKeys(config.keyPrefix);
    this.#reads = config.reads ?? new ReadBatcher(config.redis);
    this.#scripts = new ScriptRunner(config.redis, this.#reads);
  }

  async add(record: UsageRecord): Promise<void> {
    if (record.worldId === undefined) return;
    const key = this.#key(record.worldId);
    const groups: [string, string][] = [["total", ""], ["operation", record.operation]];
    if (record.agentId !== undefined) groups.push(["agent", record.agentId]);
    // A provider without a prompt cache reports no cached tokens: no increment of nothing.
    const increments = groups.flatMap(([group, name]) =>
      METRICS.filter((metric) => metric !== "cachedPromptTokens" || (record[metric] ?? 0) !== 0)
        .map((metric) =>
          [JSON.stringify([group, name, metric]), Math.round(record[metric] ?? 0)] as const
        )
    );
    await this.#scripts.run(addCounts, { key, increments }, { rideMs: COUNTER_WAIT_MS });
  }

  totals(worldId: string): Promise<UsageTotals> {
    return redisCall("read model usage", async () => {
      const reply: unknown = await this.#redis.hgetall(this.#key(worldId));
      const totals: UsageTotals = { total: zero(), byAgent: {}, byOperation: {} };
      for (const [field, value] of pairs(reply, "read model usage")) {
        const [group, name, metric] = JSON.parse(field) as [string, string, keyof UsageCounts];
        if (!METRICS.includes(metric)) continue;
        const counts = group === "total"
          ? totals.total
          : group === "agent"
          ? (totals.byAgent[name] ??= zero())
          : group === "operation"
          ? (totals.byOperation[name] ??= zero())
          : undefined;
        if (counts) counts[metric] = Number(value);
      }
      return totals;
    });
  }

  async addSpend(subject: string, period: string, write: SpendWrite): Promise<void> {
    const { spend, expireAfterMs } = write;
    for (const value of [spend.calls, spend.tokens]) {
      if (!Number.isFinite(value) || value < 0) {
        throw new SimulacraError(
          "invalid_request",
          `Cannot record ${value} as spend: counts are zero or more`,
        );
      }
    }
    const key = this.#keys.spend(subject, period);
    const increments = [["calls", spend.calls], ["tokens", spend.tokens]] as const;
    await this.#scripts.run(addCounts, { key, increments, expireAfterMs }, {
      rideMs: COUNTER_WAIT_MS,
    });
  }

  spend(subject: string, period: string): Promise<Spend> {
    return redisCall("read budget spend", async () => {
      // Pipelined: a tick step's world and key budgets are read in one request.
      const reply: unknown = await this.#reads.read((p) =>
        p.hgetall(this.#keys.spend(subject, period))
      );
      const spend: Spend = { calls: 0, tokens: 0 };
      for (const [field, value] of pairs(reply, "read budget spend")) {
        if (field === "calls" || field === "tokens") spend[field] = Number(value);
      }
      return spend;
    });
  }

  remove(worldId: string, options: { agentId?: string } = {}): Promise<void> {
    const key = this.#key(worldId);
    const agentId = options.agentId;
    return redisCall("remove model usage", async () => {
      if (agentId === undefined) {
        // A removed world takes its daily budget counters along (ids are [A-Za-z0-9_-]).
        const match = this.#keys.spend(worldSubject(worldId));
        const keys = [key];
        let cursor = "0";
        do {
          const [next, found] = await this.#redis.scan(cursor, { match, count: 500 });
          cursor = String(next);
          keys.push(...found.map(String));
        } while (cursor !== "0");
        await this.#redis.del(...keys);
        return;
      }
      await this.#redis.hdel(
        key,
        ...METRICS.map((metric) => JSON.stringify(["agent", agentId, metric])),
      );
    });
  }

  #key(worldId: string): string {
    return this.#keys.usage(worldId);
  }
}

function zero(): UsageCounts {
  return { calls: 0, promptTokens: 0, completionTokens: 0, cachedPromptTokens: 0 };
}
