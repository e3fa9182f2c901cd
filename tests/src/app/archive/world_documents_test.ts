import assert from "node:assert/strict";
import {
  AGENT_COLLECTIONS,
  GLOBAL_COLLECTIONS,
  TRANSIENT_COLLECTIONS,
  WORLD_COLLECTIONS,
} from "../../../../src/app/archive/world_documents.ts";
import { usageRecords } from "../../../../src/app/archive/restore_usage.ts";

async function* tsFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* tsFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

Deno.test("WORLD_COLLECTIONS names every document collection src/ uses, so exports miss nothing", async () => {
  const known = new Set<string>([
    ...WORLD_COLLECTIONS,
    ...AGENT_COLLECTIONS,
    ...GLOBAL_COLLECTIONS,
    ...TRANSIENT_COLLECTIONS,
  ]);
  const missing: string[] = [];
  for await (const file of tsFiles("src")) {
    for (const m of (await Deno.readTextFile(file)).matchAll(/collection: "([a-z_]+)"/g)) {
      if (!known.has(m[1])) missing.push(`${file}: "${m[1]}"`);
    }
  }
  assert.deepEqual(missing, []);
});

Deno.test("usageRecords() reproduces the totals, per agent and per operation", () => {
  const totals = {
    total: { calls: 10, promptTokens: 1000, completionTokens: 100, cachedPromptTokens: 480 },
    byAgent: {
      ann: { calls: 4, promptTokens: 500, completionTokens: 60, cachedPromptTokens: 256 },
      bob: { calls: 3, promptTokens: 300, completionTokens: 40, cachedPromptTokens: 128 },
    },
    byOperation: {
      importance: { calls: 6, promptTokens: 200, completionTokens: 30, cachedPromptTokens: 96 },
      plan: { calls: 4, promptTokens: 800, completionTokens: 70, cachedPromptTokens: 384 },
    },
  };
  const sum = {
    total: { calls: 0, promptTokens: 0, completionTokens: 0, cachedPromptTokens: 0 },
  } as Record<
    string,
    Record<string, number>
  >;
  for (const r of usageRecords("w", totals)) {
    for (const group of ["total", `agent:${r.agentId}`, `op:${r.operation}`]) {
      if (group === "agent:undefined") continue;
      sum[group] ??= { calls: 0, promptTokens: 0, completionTokens: 0, cachedPromptTokens: 0 };
      sum[group].calls += r.calls;
      sum[group].promptTokens += r.promptTokens;
      sum[group].completionTokens += r.completionTokens;
      sum[group].cachedPromptTokens += r.cachedPromptTokens ?? 0;
    }
  }
  assert.deepEqual(sum.total, totals.total);
  assert.deepEqual(sum["agent:ann"], totals.byAgent.ann);
  assert.deepEqual(sum["agent:bob"], totals.byAgent.bob);
  assert.deepEqual(sum["op:importance"], totals.byOperation.importance);
  assert.deepEqual(sum["op:plan"], totals.byOperation.plan);
});
