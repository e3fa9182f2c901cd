/**
 * @module Puts a world's usage totals back into a ledger that only adds up calls.
 *
 * The ledger keeps three independent sums (total, per agent, per operation) and offers only
 * `add(record)`, each record counting towards its agent and its operation. Totals alone do not
 * say which agent's calls were which operation, but any set of records whose per-agent and
 * per-operation sums match gives the same three totals: this builds one such set per counter,
 * pairing agents with operations greedily (the north-west corner rule of a transport problem),
 * which takes at most agents + operations records per counter.
 */
import type { Deps, UsageTotals } from "../../ports/mod.ts";
import type { UsageRecord } from "../../domain/mod.ts";

const FIELDS = ["calls", "promptTokens", "completionTokens", "cachedPromptTokens"] as const;

/** Adds records to the ledger of `worldId` that reproduce `totals` exactly. */
export async function restoreUsage(
  deps: Pick<Deps, "storage">,
  worldId: string,
  totals: UsageTotals,
): Promise<void> {
  for (const record of usageRecords(worldId, totals)) await deps.storage.usage.add(record);
}

/** The records {@linkcode restoreUsage} adds. */
export function usageRecords(worldId: string, totals: UsageTotals): UsageRecord[] {
  const records: UsageRecord[] = [];
  for (const field of FIELDS) {
    // Supplies: each agent, plus calls made for no agent. Demands: each operation.
    const agents = Object.entries(totals.byAgent).map(([id, c]) => ({ id, left: c[field] ?? 0 }));
    const attributed = agents.reduce((sum, a) => sum + a.left, 0);
    agents.push({ id: "", left: Math.max(0, (totals.total[field] ?? 0) - attributed) });
    const ops = Object.entries(totals.byOperation).map(([id, c]) => ({ id, left: c[field] ?? 0 }));
    let a = 0;
    for (const op of ops) {
      while (op.left > 0 && a < agents.length) {
        const take = Math.min(op.left, agents[a].left);
        if (take > 0) {
          records.push({
            worldId,
            agentId: agents[a].id === "" ? undefined : agents[a].id,
            operation: op.id,
            model: "imported",
            estimated: false,
            calls: 0,
            promptTokens: 0,
            completionTokens: 0,
            cachedPromptTokens: 0,
            [field]: take,
          });
        }
        op.left -= take;
        agents[a].left -= take;
        if (agents[a].left === 0) a++;
      }
    }
  }
  return records;
}
