/**
 * Supersession over HTTP on both backends (README "Memory upkeep"): perceiving news that updates
 * a fact the agent holds marks the older memory `supersededBy` the newer, at no model call of
 * its own; retrieval then returns the newer and leaves the older out unless asked. Measured on
 * the fact-update pairs of `_fact_updates_fixture.ts` (the share is in BENCHMARKS.md).
 */
import assert from "node:assert/strict";
import { startBackends } from "../_helpers/backends.ts";
import { appOn, sanitizersFor } from "../_helpers/backend_app.ts";
import { call } from "../_helpers/http_call.ts";
import { worldWithAgents } from "../_helpers/http_world.ts";
import { countingModel } from "../_helpers/test_deps.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { addUsage, type Attribution, type Prompt } from "../../src/domain/mod.ts";
import type { Completion, LanguageModel } from "../../src/ports/mod.ts";
import { DISTRACTORS, FACT_UPDATES, UNRELATED } from "../src/app/memory/_fact_updates_fixture.ts";

const { backends, close } = await startBackends();

interface Memory {
  id: string;
  description: string;
  supersededBy?: string;
  invalidAt?: string;
  createdAt: string;
}

const MIRA = {
  id: "mira",
  name: "Mira Stone",
  description: "Mira keeps the inn at the crossroads; she hears all the news of the town",
};

function minute(m: number): string {
  return `2023-02-13T${String(9 + Math.floor(m / 60)).padStart(2, "0")}:${
    String(m % 60).padStart(2, "0")
  }:00`;
}

for (const backend of backends) {
  const opts = sanitizersFor(backend);
  const withApp = appOn(backend);

  Deno.test({
    name:
      `[${backend.name}] news that updates a fact supersedes it: retrieve returns the newer, the older is marked`,
    ...opts,
    fn: async () => {
      const { model, kinds } = countingModel();
      await withApp(async (app) => {
        // Each pair on an agent of its own, holding the older fact among facts that stay true.
        const w = await worldWithAgents(
          app,
          FACT_UPDATES.map((_, i) => ({ ...MIRA, id: `m${i}` })),
          { autoReflect: false },
        );
        let newerFirst = 0;
        let marked = 0;
        for (const [i, pair] of FACT_UPDATES.entries()) {
          const a = `${w}/agents/m${i}`;
          const held = await call(app, "POST", `${a}/perceive`, {
            observations: [pair.before, ...DISTRACTORS].map((text) => ({
              text,
              at: "2023-02-13T08:00:00",
            })),
          });
          assert.equal(held.status, 200, JSON.stringify(held.body));
          kinds.length = 0;
          const news = await call(app, "POST", `${a}/perceive`, {
            observations: [{ text: pair.after, at: "2023-02-13T09:00:00" }],
          });
          assert.equal(news.status, 200, JSON.stringify(news.body));
          assert.deepEqual(kinds, ["importance"], "detection rides on the importance call");
          const newer: Memory = news.body.memories[0];
          const older = await call(app, "GET", `${a}/memories/${held.body.memories[0].id}`);
          if (older.body.supersededBy === newer.id) {
            marked++;
            assert.equal(older.body.invalidAt, newer.createdAt);
          }
          const found = await call(app, "POST", `${a}/retrieve`, {
            query: pair.query,
            k: 5,
            at: "2023-02-13T09:05:00",
          });
          assert.equal(found.status, 200, JSON.stringify(found.body));
          const ids = found.body.memories.map((m: Memory) => m.id);
          if (ids[0] === newer.id && !ids.includes(older.body.id)) newerFirst++;
        }
        assert.ok(FACT_UPDATES.length >= 20);
        assert.equal(marked, FACT_UPDATES.length, "every older fact is marked supersededBy");
        assert.equal(newerFirst, FACT_UPDATES.length, "retrieve returns the newer first");
        const a = `${w}/agents/m0`;

        // News that updates nothing supersedes nothing (m0 holds one superseded fact).
        for (const [i, text] of UNRELATED.entries()) {
          const p = await call(app, "POST", `${a}/perceive`, {
            observations: [{ text, at: minute(60 + i) }],
          });
          assert.equal(p.status, 200, JSON.stringify(p.body));
        }
        const live = await call(app, "GET", `${a}/memories?limit=500`);
        const superseded = live.body.memories.filter((m: Memory) => m.supersededBy !== undefined);
        assert.equal(superseded.length, 1, "only the fact that changed");

        // includeSuperseded brings the older back, scored and flagged.
        const both = await call(app, "POST", `${a}/retrieve`, {
          query: FACT_UPDATES[0].query,
          k: 40,
          includeSuperseded: true,
        });
        const old = both.body.memories.find((m: Memory) =>
          m.description === FACT_UPDATES[0].before
        );
        assert.ok(old?.supersededBy, "the older fact, flagged");
        assert.equal(typeof old.score, "number");
      }, { model });
    },
  });

  Deno.test({
    name:
      `[${backend.name}] news told in a conversation supersedes the listener's older fact, at no call of its own`,
    ...opts,
    fn: async () => {
      // Sam's first line is scripted (the offline model passes on only news it was told); the
      // rest, and every importance call, is the offline model's.
      const { model, kinds } = countingModel(
        samTells("Have you heard? The bakery has moved to Oak Avenue."),
      );
      await withApp(async (app) => {
        const w = await worldWithAgents(app, [
          { ...MIRA, id: "mira" },
          {
            id: "sam",
            name: "Sam Moore",
            description: "Sam bakes bread and delivers it around town",
          },
        ], { autoReflect: false });
        const held = await call(app, "POST", `${w}/agents/mira/perceive`, {
          observations: [{ text: "The bakery is on Elm Street", at: "2023-02-13T08:00:00" }],
        });
        assert.equal(held.status, 200, JSON.stringify(held.body));
        kinds.length = 0;
        const talk = await call(app, "POST", `${w}/conversations`, {
          participants: ["sam", "mira"],
          at: "2023-02-13T09:00:00",
        });
        assert.equal(talk.status, 200, JSON.stringify(talk.body));
        const toldLine = talk.body.lines.find((l: { speaker: string; text: string }) =>
          l.speaker === "sam" && /Oak Avenue/.test(l.text)
        );
        assert.ok(toldLine, `Sam passes the news on: ${JSON.stringify(talk.body.lines)}`);
        assert.ok(
          kinds.filter((k) => k === "importance").length <= 2,
          `one importance call per participant: ${kinds}`,
        );
        const older = await call(
          app,
          "GET",
          `${w}/agents/mira/memories/${held.body.memories[0].id}`,
        );
        assert.ok(older.body.supersededBy, "Mira's older fact is superseded by what she was told");
        const newer = await call(
          app,
          "GET",
          `${w}/agents/mira/memories/${older.body.supersededBy}`,
        );
        assert.match(newer.body.provenance, /^told_by:Sam Moore$/);
        assert.match(newer.body.description, /Oak Avenue/);
        const found = await call(app, "POST", `${w}/agents/mira/retrieve`, {
          query: "Where is the bakery?",
          k: 5,
          at: "2023-02-13T09:30:00",
        });
        const ids = found.body.memories.map((m: Memory) => m.id);
        assert.ok(!ids.includes(older.body.id), "the older address is left out of retrieval");
        // What Mira said herself looked up nothing: Sam's stream keeps its facts.
        const sams = await call(app, "GET", `${w}/agents/sam/memories?limit=100`);
        assert.ok(sams.body.memories.every((m: Memory) => m.supersededBy === undefined));
      }, { model });
    },
  });
}

/** The offline model, but Sam opens a conversation with `line`. */
function samTells(line: string): LanguageModel {
  const offline = new OfflineLanguageModel({});
  let told = false;
  return {
    info: offline.info,
    complete<T>(prompt: Prompt<T>, attribution: Attribution): Promise<Completion<T>> {
      if (prompt.kind !== "dialogue_line" || attribution.agentId !== "sam" || told) {
        return offline.complete(prompt, attribution);
      }
      told = true;
      const value = prompt.schema.parse({ line, end: false });
      return Promise.resolve({ value, usage: addUsage(), model: "scripted" });
    },
  };
}

Deno.test({
  name: "supersession routes: close the backends",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => close(),
});
