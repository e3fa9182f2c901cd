import assert from "node:assert/strict";
import {
  meteredDeps,
  spendRecorder,
  spendsInHook,
  utcDay,
} from "../../../lib/access/budget_meter.ts";
import { runInRequest } from "../../../lib/access/request_context.ts";
import { OfflineLanguageModel } from "../../../lib/offline/offline_language_model.ts";
import type { LanguageModel } from "../../../src/ports/language_model.ts";
import { z } from "zod";
import { makeTestDeps } from "../../_helpers/test_deps.ts";

const prompt = {
  kind: "test",
  tier: "fast" as const,
  messages: [{ role: "user" as const, content: "Rate: the cafe opens" }],
  schema: z.object({ rating: z.number() }),
  input: {},
};

Deno.test("meteredDeps() adds each call to its world's day and, in a request, its key's total", async () => {
  await using deps = await makeTestDeps();
  const now = Date.UTC(2026, 10, 23, 23, 59);
  const metered = meteredDeps(deps, { now: () => now });
  assert.equal(meteredDeps(metered), metered, "wrapping twice is a no-op");
  await metered.model.complete(prompt, { worldId: "w", operation: "importance" });
  await runInRequest({ keyId: "k_1" }, async () => {
    await metered.model.complete(prompt, { worldId: "w", operation: "importance" });
    await metered.model.complete(prompt, { operation: "no world" });
  });
  const day = await deps.storage.usage.spend("world:w", "2026-11-23");
  assert.equal(day.calls, 2);
  assert.ok(day.tokens > 0);
  assert.equal((await deps.storage.usage.spend("key:k_1", "total")).calls, 2);
  assert.equal(utcDay(now), "2026-11-23");
});

Deno.test("meteredDeps() passes the ports' info and health probes through", async () => {
  let probed = 0;
  const offline = new OfflineLanguageModel({});
  const model: LanguageModel = {
    info: offline.info,
    complete: (p, a) => offline.complete(p, a),
    probe: () => {
      probed++;
      return Promise.resolve();
    },
  };
  await using deps = await makeTestDeps({ model });
  const metered = meteredDeps(deps);
  assert.deepEqual(metered.model.info, model.info);
  assert.deepEqual(metered.embedder.info, deps.embedder.info);
  await metered.model.probe!();
  assert.equal(probed, 1);
  assert.equal(metered.embedder.probe, undefined, "the local embedder has no probe");
});

Deno.test("spendRecorder() in a model's usage hook spends each call once, as meteredDeps() does, which then leaves the model as it is", async () => {
  await using deps = await makeTestDeps();
  const now = Date.UTC(2026, 10, 23, 12, 0);
  const spend = spendRecorder(deps.storage.usage, { now: () => now });
  const model = spendsInHook(
    new OfflineLanguageModel({
      onUsage: (r) => Promise.all([deps.storage.usage.add(r), spend(r)]).then(() => {}),
    }),
  );
  const metered = meteredDeps({ ...deps, model }, { now: () => now });
  assert.equal(metered.model, model, "the model records its spend itself");
  assert.notEqual(metered.embedder, deps.embedder, "the embedder is still wrapped");
  await runInRequest({ keyId: "k_2" }, async () => {
    await metered.model.complete(prompt, { worldId: "w", operation: "importance" });
    await metered.model.complete(prompt, { worldId: "w", operation: "importance" });
  });
  const day = await deps.storage.usage.spend("world:w", "2026-11-23");
  const totals = await deps.storage.usage.totals("w");
  assert.equal(day.calls, 2);
  assert.equal(day.tokens, totals.total.promptTokens + totals.total.completionTokens);
  assert.equal((await deps.storage.usage.spend("key:k_2", "total")).calls, 2);
});
