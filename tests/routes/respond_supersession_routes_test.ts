/**
 * Supersession in replies over HTTP on both backends (README "Memory upkeep"): a speaker telling
 * an agent in chat that a fact it holds has changed marks the older memory `supersededBy` the
 * stored `told_by` memory of the message, named by the reply call itself (still one model call
 * per reply); small talk and interviews supersede nothing. Measured on the fact-update pairs of
 * `_fact_updates_fixture.ts` (the share is in BENCHMARKS.md).
 */
import assert from "node:assert/strict";
import { startBackends } from "../_helpers/backends.ts";
import { appOn, sanitizersFor } from "../_helpers/backend_app.ts";
import { call } from "../_helpers/http_call.ts";
import { worldWithAgents } from "../_helpers/http_world.ts";
import { countingModel } from "../_helpers/test_deps.ts";
import { DISTRACTORS, FACT_UPDATES } from "../src/app/memory/_fact_updates_fixture.ts";

const { backends, close } = await startBackends();

interface Memory {
  id: string;
  description: string;
  provenance: string;
  supersededBy?: string;
  invalidAt?: string;
  createdAt: string;
}

const MIRA = {
  id: "mira",
  name: "Mira Stone",
  description: "Mira keeps the inn at the crossroads; she hears all the news of the town",
};
const TELLER = { name: "Ada Quill", description: "A traveller passing through" };

for (const backend of backends) {
  const opts = sanitizersFor(backend);
  const withApp = appOn(backend);

  Deno.test({
    name:
      `[${backend.name}] news told in a reply supersedes the agent's older fact, in the reply's one call`,
    ...opts,
    fn: async () => {
      const { model, kinds } = countingModel();
      await withApp(async (app) => {
        const w = await worldWithAgents(
          app,
          FACT_UPDATES.map((_, i) => ({ ...MIRA, id: `m${i}` })),
          { autoReflect: false },
        );
        let marked = 0;
        let leftOut = 0;
        for (const [i, pair] of FACT_UPDATES.entries()) {
          const a = `${w}/agents/m${i}`;
          const held = await call(app, "POST", `${a}/perceive`, {
            observations: [pair.before, ...DISTRACTORS].map((text) => ({
              text,
              at: "2023-02-13T08:00:00",
            })),
          });
          assert.equal(held.status, 200, JSON.stringify(held.body));
          const olderId = held.body.memories[0].id;
          // An interview stores nothing, so it supersedes nothing.
          const asked = await call(app, "POST", `${a}/respond`, {
            message: pair.after,
            mode: "interview",
            speaker: TELLER,
            at: "2023-02-13T08:30:00",
          });
          assert.equal(asked.status, 200, JSON.stringify(asked.body));
          const still = await call(app, "GET", `${a}/memories/${olderId}`);
          assert.equal(still.body.supersededBy, undefined, "an interview supersedes nothing");

          kinds.length = 0;
          const told = await call(app, "POST", `${a}/respond`, {
            message: pair.after,
            speaker: TELLER,
            at: "2023-02-13T09:00:00",
          });
          assert.equal(told.status, 200, JSON.stringify(told.body));
          assert.deepEqual(kinds, ["respond"], "detection rides on the reply call");
          const toldId = told.body.stored.find((m: Memory) =>
            m.provenance === `told_by:${TELLER.name}`
          ).id;
          const older = await call(app, "GET", `${a}/memories/${olderId}`);
          if (older.body.supersededBy === toldId) {
            marked++;
            const newer = await call(app, "GET", `${a}/memories/${toldId}`);
            assert.equal(older.body.invalidAt, newer.body.createdAt);
          }
          const found = await call(app, "POST", `${a}/retrieve`, {
            query: pair.query,
            k: 5,
            at: "2023-02-13T09:05:00",
          });
          assert.equal(found.status, 200, JSON.stringify(found.body));
          if (!found.body.memories.some((m: Memory) => m.id === olderId)) leftOut++;
        }
        assert.equal(marked, FACT_UPDATES.length, "every older fact is marked supersededBy");
        assert.equal(leftOut, FACT_UPDATES.length, "retrieval leaves every older fact out");

        // Small talk supersedes nothing: m0's distractors stay live.
        for (const message of ["Hello there!", "Lovely weather today, isn't it?"]) {
          const chat = await call(app, "POST", `${w}/agents/m0/respond`, {
            message,
            speaker: TELLER,
            at: "2023-02-13T10:00:00",
          });
          assert.equal(chat.status, 200, JSON.stringify(chat.body));
        }
        const all = await call(app, "GET", `${w}/agents/m0/memories?limit=500`);
        const superseded = all.body.memories.filter((m: Memory) => m.supersededBy !== undefined);
        assert.equal(superseded.length, 1, "only the fact that changed");
      }, { model });
    },
  });
}

Deno.test({
  name: "respond supersession routes: close the backends",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => close(),
});
