/**
 * @module The embedded UsageLedger: per-world usage counters in Deno KV, added with atomic sums.
 *
 * Each counter is a `Deno.KvU64` under `["usage", worldId, "total" | "agent" | "op", name?, field]`.
 * One call's record adds to its world total, its agent and its operation in a single atomic
 * operation of `sum` mutations, which never conflict, so concurrent adds are exact.
 */
import { SimulacraError, type UsageRecord, worldSubject } from "../../src/domain/mod.ts";
import type {
  Spend,
  SpendWrite,
  UsageCounts,
  UsageLedger,
  UsageTotals,
} from "../../src/ports/mod.ts";
import { assertKeySize, deletePrefixes, guard, listAll } from "./_kv_support.ts";

/** Configuration of {@linkcode KvUsageLedger}. */
export interface KvUsageLedgerOptions {
  /** An open Deno KV; the caller closes it. */
  kv: Deno.Kv;
}

const FIELDS = ["calls", "promptTokens", "completionTokens", "cachedPromptTokens"] as const;

function zero(): UsageCounts {
  return { calls: 0, promptTokens: 0, completionTokens: 0, cachedPromptTokens: 0 };
}

function count(value: number, field: string): bigint {
  if (!Number.isFinite(value) || value < 0) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot record ${value} ${field}: usage counts are zero or more`,
    );
  }
  return BigInt(Math.round(value));
}

/** The counts of `name` in `map`, added if missing (safely, whatever the name, even "__proto__"). */
function entry(map: Record<string, UsageCounts>, name: string): UsageCounts {
  if (Object.hasOwn(map, name)) return map[name];
  const counts = zero();
  Object.defineProperty(map, name, {
    value: counts,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return counts;
}

/** Counters one commit of {@linkcode KvUsageLedger.add} sums at most (KV allows 1,000 mutations). */
const BATCH_KEYS = 800;

/** Adds waiting for one commit: their sums by counter, and that commit. */
interface Batch {
  sums: Map<string, { key: Deno.KvKey; amount: bigint }>;
  done: Promise<void>;
}

/** Usage totals per world, agent and operation in Deno KV. */
export class KvUsageLedger implements UsageLedger {
  readonly #kv: Deno.Kv;
  /** The batch adds join until its commit starts (null: none collecting). */
  #collecting: Batch | null = null;
  /** The last batch's commit: the next one starts after it. */
  #committing: Promise<void> = Promise.resolve();

  constructor(options: KvUsageLedgerOptions) {
    this.#kv = options.kv;
  }

  /**
   * Adds one call's usage to its world's totals; records without a world are not kept. Adds
   * made while an earlier add's commit runs are summed into the next commit together (sums
   * commute, so the totals are the same; issue 25: a KV commit per model call), and each add
   * resolves once the commit holding it did.
   *
   * @throws {SimulacraError} `invalid_request` on a negative or non-finite count.
   */
  async add(record: UsageRecord): Promise<void> {
    const { worldId, agentId, operation } = record;
    if (worldId === undefined) return;
    const groups: Deno.KvKey[] = [["usage", worldId, "total"], ["usage", worldId, "op", operation]];
    if (agentId !== undefined) groups.push(["usage", worldId, "agent", agentId]);
    for (const group of groups) assertKeySize(group, "world, agent or operation name");
    const amounts = FIELDS.map((field) => count(record[field] ?? 0, field));
    if ((this.#collecting?.sums.size ?? 0) + groups.length * FIELDS.length > BATCH_KEYS) {
      this.#collecting = null; // full: it commits as it is, this add starts the next
    }
    const batch = this.#collecting ??= this.#batch();
    for (const group of groups) {
      FIELDS.forEach((field, i) => {
        const key = [...group, field];
        const id = JSON.stringify(key);
        const sum = batch.sums.get(id);
        batch.sums.set(id, { key, amount: (sum?.amount ?? 0n) + amounts[i] });
      });
    }
    await batch.done;
  }

  /** A new batch, committed once the previous batch's commit is done. */
  #batch(): Batch {
    const sums = new Map<string, { key: Deno.KvKey; amount: bigint }>();
    const after = this.#committing;
    const done = (async () => {
      await after;
      if (this.#collecting?.sums === sums) this.#collecting = null;
      await guard("record model usage", async () => {
        const op = this.#kv.atomic();
        for (const { key, amount } of sums.values()) op.sum(key, amount);
        await op.commit();
      });
    })();
    this.#committing = done.catch(() => {});
    return { sums, done };
  }

  /** Removes a world's totals, or one agent's line in them. */
  async remove(worldId: string, options: { agentId?: string } = {}): Promise<void> {
    const prefix: Deno.KvKey = options.agentId === undefined
      ? ["usage", worldId]
      : ["usage", worldId, "agent", options.agentId];
    assertKeySize(prefix, "world or agent id");
    // A removed world takes its daily budget counters along.
    const prefixes = options.agentId === undefined
      ? [prefix, ["spend", worldSubject(worldId)]]
      : [prefix];
    await guard("remove model usage", () => deletePrefixes(this.#kv, prefixes));
  }

  /** The totals of a world (zeros when nothing was recorded). */
  async totals(worldId: string): Promise<UsageTotals> {
    assertKeySize(["usage", worldId], "world id");
    return await guard("read model usage", async () => {
      const totals: UsageTotals = { total: zero(), byAgent: {}, byOperation: {} };
      for (
        const { key, value } of await listAll<Deno.KvU64>(this.#kv, { prefix: ["usage", worldId] })
      ) {
        const field = key[key.length - 1] as (typeof FIELDS)[number];
        let counts: UsageCounts;
        if (key[2] === "total") counts = totals.total;
        else {
          counts = entry(
            key[2] === "agent" ? totals.byAgent : totals.byOperation,
            key[3] as string,
          );
        }
        counts[field] = Number(value.value);
      }
      return totals;
    });
  }

  /**
   * Adds to a budget counter. Deno KV's `sum` takes no expiry, so the counters stay (two
   * numbers per subject and day).
   *
   * @throws {SimulacraError} `invalid_request` on a negative or non-finite count.
   */
  async addSpend(subject: string, period: string, { spend }: SpendWrite): Promise<void> {
    const key: Deno.KvKey = ["spend", subject, period];
    assertKeySize(key, "budget subject");
    const calls = count(spend.calls, "calls");
    const tokens = count(spend.tokens, "tokens");
    await guard("record budget spend", async () => {
      await this.#kv.atomic().sum([...key, "calls"], calls).sum([...key, "tokens"], tokens)
        .commit();
    });
  }

  /** A budget counter (zeros when nothing was spent). */
  async spend(subject: string, period: string): Promise<Spend> {
    const key: Deno.KvKey = ["spend", subject, period];
    assertKeySize(key, "budget subject");
    return await guard("read budget spend", async () => {
      const [calls, tokens] = await this.#kv.getMany<[Deno.KvU64, Deno.KvU64]>([
        [...key, "calls"],
        [...key, "tokens"],
      ]);
      return { calls: Number(calls.value?.value ?? 0n), tokens: Number(tokens.value?.value ?? 0n) };
    });
  }
}
