import assert from "node:assert/strict";
import { meteredDeps, utcDay } from "../../../lib/access/budget_meter.ts";
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
