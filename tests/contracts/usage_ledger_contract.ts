/** @module Contract cases every UsageLedger adapter must pass. */
import assert from "node:assert/strict";
import { type ContractCases, newWorldId, usage } from "./_contract_support.ts";

const ZERO = { calls: 0, promptTokens: 0, completionTokens: 0, cachedPromptTokens: 0 };

/** Registers the UsageLedger cases. */
export function usageLedgerContract(cases: ContractCases): void {
  cases.add("UsageLedger.totals() returns zeros for a world without usage", async (s) => {
    assert.deepEqual(await s.usage.totals(newWorldId()), {
      total: ZERO,
      byAgent: {},
      byOperation: {},
    });
  });

  cases.add("UsageLedger.add() sums totals by agent and operation", async (s) => {
    const worldId = newWorldId();
    await s.usage.add(usage({ worldId, agentId: "klaus", operation: "importance" }));
    await s.usage.add(
      usage({
        worldId,
        agentId: "klaus",
        operation: "plan.daily",
        promptTokens: 900,
        completionTokens: 300,
        cachedPromptTokens: 0,
      }),
    );
    await s.usage.add(
      usage({
        worldId,
        agentId: "maria",
        operation: "importance",
        calls: 2,
        promptTokens: 50,
        completionTokens: 5,
        cachedPromptTokens: 0,
      }),
    );
    await s.usage.add(
      usage({ worldId, operation: "embed", promptTokens: 7, completionTokens: 0, estimated: true }),
    );
    // A record without a world is not kept anywhere (and does not fail).
    await s.usage.add(usage({ operation: "health", promptTokens: 1_000_000 }));

    assert.deepEqual(await s.usage.totals(worldId), {
      total: { calls: 5, promptTokens: 1057, completionTokens: 315, cachedPromptTokens: 0 },
      byAgent: {
        klaus: { calls: 2, promptTokens: 1000, completionTokens: 310, cachedPromptTokens: 0 },
        maria: { calls: 2, promptTokens: 50, completionTokens: 5, cachedPromptTokens: 0 },
      },
      byOperation: {
        importance: { calls: 3, promptTokens: 150, completionTokens: 15, cachedPromptTokens: 0 },
        "plan.daily": { calls: 1, promptTokens: 900, completionTokens: 300, cachedPromptTokens: 0 },
        embed: { calls: 1, promptTokens: 7, completionTokens: 0, cachedPromptTokens: 0 },
      },
    });
  });

  cases.add("UsageLedger.add() sums cached prompt tokens by agent and operation", async (s) => {
    const worldId = newWorldId();
    const cached = (agentId: string, operation: string, cachedPromptTokens: number) =>
      s.usage.add({
        ...usage({ worldId, agentId, operation, promptTokens: 100 }),
        cachedPromptTokens,
      });
    await cached("klaus", "plan.decompose", 64);
    await cached("klaus", "importance", 32);
    await cached("maria", "importance", 0);
    await s.usage.add(usage({ worldId, agentId: "maria", operation: "importance" }));
    const totals = await s.usage.totals(worldId);
    assert.equal(totals.total.cachedPromptTokens, 96);
    assert.equal(totals.byAgent.klaus.cachedPromptTokens, 96);
    assert.equal(totals.byAgent.maria.cachedPromptTokens, 0, "none reported, none counted");
    assert.equal(totals.byOperation.importance.cachedPromptTokens, 32);
    assert.equal(totals.byOperation["plan.decompose"].cachedPromptTokens, 64);
    await s.usage.remove(worldId, { agentId: "klaus" });
    const after = await s.usage.totals(worldId);
    assert.equal(after.byAgent.klaus, undefined);
    assert.equal(after.total.cachedPromptTokens, 96, "the world's total keeps what klaus cost");
  });

  cases.add("UsageLedger.add() keeps totals exact under concurrent adds", async (s) => {
    const worldId = newWorldId();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        s.usage.add(usage({
          worldId,
          agentId: `agent-${i % 3}`,
          operation: i % 2 === 0 ? "react" : "dialogue.reply",
          promptTokens: i,
          completionTokens: 1,
          cachedPromptTokens: 0,
        }))),
    );
    const totals = await s.usage.totals(worldId);
    assert.deepEqual(totals.total, {
      calls: 30,
      promptTokens: 435,
      completionTokens: 30,
      cachedPromptTokens: 0,
    });
    assert.deepEqual(Object.keys(totals.byAgent).sort(), ["agent-0", "agent-1", "agent-2"]);
    for (const counts of Object.values(totals.byAgent)) assert.equal(counts.calls, 10);
    assert.deepEqual(totals.byAgent["agent-0"], {
      calls: 10,
      promptTokens: 135,
      completionTokens: 10,
      cachedPromptTokens: 0,
    });
    assert.deepEqual(totals.byOperation, {
      react: { calls: 15, promptTokens: 210, completionTokens: 15, cachedPromptTokens: 0 },
      "dialogue.reply": {
        calls: 15,
        promptTokens: 225,
        completionTokens: 15,
        cachedPromptTokens: 0,
      },
    });
  });

  cases.add("UsageLedger keeps worlds apart", async (s) => {
    const a = newWorldId();
    const b = newWorldId();
    await s.usage.add(usage({ worldId: a, agentId: "x" }));
    await s.usage.add(usage({ worldId: b, agentId: "y", operation: "reflect" }));
    const totalsA = await s.usage.totals(a);
    assert.deepEqual(Object.keys(totalsA.byAgent), ["x"]);
    assert.deepEqual(Object.keys(totalsA.byOperation), ["importance"]);
    assert.deepEqual(totalsA.total, {
      calls: 1,
      promptTokens: 100,
      completionTokens: 10,
      cachedPromptTokens: 0,
    });
  });

  cases.add("UsageLedger.addSpend() sums a budget counter per subject and period", async (s) => {
    const subject = `key:${newWorldId()}`;
    assert.deepEqual(await s.usage.spend(subject, "2026-11-23"), { calls: 0, tokens: 0 });
    await s.usage.addSpend(subject, "2026-11-23", { spend: { calls: 1, tokens: 120 } });
    await Promise.all([
      s.usage.addSpend(subject, "2026-11-23", {
        spend: { calls: 2, tokens: 30 },
        expireAfterMs: 60_000,
      }),
      s.usage.addSpend(subject, "2026-11-24", { spend: { calls: 5, tokens: 5 } }),
      s.usage.addSpend(`world:${newWorldId()}`, "2026-11-23", { spend: { calls: 9, tokens: 9 } }),
    ]);
    assert.deepEqual(await s.usage.spend(subject, "2026-11-23"), { calls: 3, tokens: 150 });
    assert.deepEqual(await s.usage.spend(subject, "2026-11-24"), { calls: 5, tokens: 5 });
  });

  cases.add("UsageLedger.addSpend() refuses negative counts", async (s) => {
    await assert.rejects(
      s.usage.addSpend(`key:${newWorldId()}`, "total", { spend: { calls: -1, tokens: 0 } }),
      (e: unknown) => (e as { code?: string }).code === "invalid_request",
    );
  });
}
