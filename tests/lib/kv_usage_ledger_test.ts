/** @module The embedded usage ledger: adds made together, summed in fewer commits, exactly. */
import assert from "node:assert/strict";
import { KvUsageLedger } from "../../lib/kv/kv_usage_ledger.ts";
import { countingCommits } from "../_helpers/kv_commits.ts";

Deno.test("KvUsageLedger.add() sums adds made together in fewer commits, each counted once", async () => {
  using raw = await Deno.openKv(":memory:");
  const { kv, commits } = countingCommits(raw);
  const ledger = new KvUsageLedger({ kv });
  const record = (agentId: string, operation: string, calls: number) => ({
    worldId: "w",
    agentId,
    operation,
    calls,
    promptTokens: 10 * calls,
    completionTokens: 2,
    model: "offline",
    estimated: true,
  });
  await Promise.all(
    Array.from(
      { length: 300 },
      (_, i) => ledger.add(record(`a${i % 7}`, `op${i % 3}`, 1 + (i % 2))),
    ),
  );
  assert.ok(commits() >= 1 && commits() < 300, `${commits()} commits for 300 adds`);
  const totals = await ledger.totals("w");
  assert.deepEqual(totals.total, {
    calls: 450,
    promptTokens: 4500,
    completionTokens: 600,
    cachedPromptTokens: 0,
  });
  assert.equal(Object.values(totals.byAgent).reduce((n, c) => n + c.calls, 0), 450);
  assert.equal(totals.byOperation.op0.calls, 150);
  await assert.rejects(ledger.add(record("a", "op", -1)), /usage counts are zero or more/);
  await ledger.add(record("a0", "op0", 1));
  assert.equal((await ledger.totals("w")).total.calls, 451, "Alone, an add commits at once");
});
