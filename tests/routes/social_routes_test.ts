import assert from "node:assert/strict";
import { startBackends } from "../_helpers/backends.ts";
import { sanitizersFor, withBackendApp } from "../_helpers/backend_app.ts";
import { call } from "../_helpers/http_call.ts";
import { countingModel } from "../_helpers/test_deps.ts";

const { backends, close } = await startBackends();

const FAVOUR = "I brought you a gift: a healing potion for your wound. Thank you for guarding us.";

/** A world with a guard (brom) and a miller (ilse); answers the guard's path. */
async function guardWorld(app: Parameters<typeof call>[0]) {
  const world = await call(app, "POST", "/v1/worlds", {
    name: "Riverbend",
    startTime: "2023-02-13T08:00:00",
  });
  assert.equal(world.status, 201, JSON.stringify(world.body));
  const w = `/v1/worlds/${world.body.id}`;
  for (
    const [id, name, description] of [
      ["brom", "Brom Hale", "Brom Hale is the gate guard of Riverbend; gruff but fair"],
      ["ilse", "Ilse Varga", "Ilse Varga runs the mill by the river"],
    ]
  ) {
    const made = await call(app, "POST", `${w}/agents`, { id, name, description });
    assert.equal(made.status, 201, JSON.stringify(made.body));
  }
  return { w, a: `${w}/agents/brom` };
}

const LORE = [
  {
    id: "mill",
    keys: ["mill"],
    content: "Nobody has worked the mill since the great flood.",
    knownBy: "all",
  },
  {
    id: "mill-secret",
    keys: ["mill"],
    content: "The miller keeps contraband in the cellar.",
    knownBy: ["brom"],
    minTrust: 0.3,
  },
  { id: "curfew", keys: [], constant: true, content: "Curfew rings at ten.", knownBy: ["brom"] },
  {
    id: "ilse-only",
    keys: ["river"],
    content: "Ilse hides her savings under the millstone.",
    knownBy: ["ilse"],
  },
  {
    id: "both-keys",
    keys: ["bridge"],
    secondaryKeys: ["toll"],
    content: "The bridge toll is two copper.",
    knownBy: "all",
  },
];

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] a favour from a speaker builds a relationship with evidence, and opens a lore secret behind minTrust`,
    ...sanitizersFor(backend),
    fn: () =>
      withBackendApp(backend, async (app) => {
        const { w, a } = await guardWorld(app);
        const put = await call(app, "PUT", `${w}/lore`, { entries: LORE });
        assert.equal(put.status, 200, JSON.stringify(put.body));
        assert.deepEqual(
          (await call(app, "GET", `${w}/lore`)).body.entries.map((e: { id: string }) => e.id),
          [
            "mill",
            "mill-secret",
            "curfew",
            "ilse-only",
            "both-keys",
          ],
        );

        const empty = await call(app, "GET", `${a}/relationships`);
        assert.equal(empty.status, 200);
        assert.deepEqual(empty.body.relationships, []);

        const speaker = { name: "Mara" };
        const first = await call(app, "POST", `${a}/respond`, {
          message: "What do you know about the mill? And is there a toll?",
          speaker,
        });
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.deepEqual(first.body.used.lore, [
          { id: "curfew", matched: null },
          { id: "mill", matched: "mill" },
        ], "a stranger hears no secret; secondary keys need the bridge too; ilse's entry is hers");

        const favour = await call(app, "POST", `${a}/respond`, { message: FAVOUR, speaker });
        assert.equal(favour.status, 200);
        const told = favour.body.stored.find((m: { provenance: string }) =>
          m.provenance === "told_by:Mara"
        );
        const bond = await call(app, "GET", `${a}/relationships/mara`);
        assert.equal(bond.status, 200, JSON.stringify(bond.body));
        assert.equal(bond.body.with, "Mara");
        assert.equal(bond.body.kind, "speaker");
        assert.equal(bond.body.familiarity, 2, "two things Mara told");
        assert.ok(bond.body.trust >= 0.3, `trust after a favour: ${bond.body.trust}`);
        assert.ok(bond.body.affinity > 0);
        assert.ok(bond.body.closeness > 0 && bond.body.closeness < 1);
        assert.ok(bond.body.evidence.includes(told.id), "the favour is evidence");
        assert.match(bond.body.summary, /Mara/);

        const again = await call(app, "POST", `${a}/respond`, {
          message: "Tell me about the old mill and the bridge toll.",
          speaker,
        });
        assert.deepEqual(again.body.used.lore.map((l: { id: string }) => l.id), [
          "curfew",
          "mill",
          "mill-secret",
          "both-keys",
        ]);
        const stranger = await call(app, "POST", `${a}/respond`, {
          message: "Tell me about the old mill.",
          speaker: { name: "Tomas" },
        });
        assert.ok(!stranger.body.used.lore.some((l: { id: string }) => l.id === "mill-secret"));

        const list = await call(app, "GET", `${a}/relationships`);
        assert.deepEqual(list.body.relationships.map((r: { name: string }) => r.name), [
          "Mara",
          "Tomas",
        ]);
        const missing = await call(app, "GET", `${a}/relationships/Nobody`);
        assert.equal(missing.status, 404);
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] an important memory moves the mood in the agent view, with its evidence`,
    ...sanitizersFor(backend),
    fn: () =>
      withBackendApp(backend, async (app) => {
        const { a } = await guardWorld(app);
        const calm = await call(app, "GET", a);
        assert.equal(calm.status, 200);
        assert.equal(calm.body.mood.label, "calm");
        assert.deepEqual(calm.body.mood.evidence, []);
        const seen = await call(app, "POST", `${a}/perceive`, {
          observations: [{
            text: "Thieves attacked the gate and stole the town's grain; a guard died",
          }],
        });
        assert.equal(seen.status, 200, JSON.stringify(seen.body));
        const upset = await call(app, "GET", a);
        assert.ok(
          upset.body.mood.valence < calm.body.mood.valence - 0.3,
          JSON.stringify(upset.body.mood),
        );
        assert.match(upset.body.mood.label, /upset|sad/);
        assert.ok(
          upset.body.mood.evidence.includes(seen.body.memories[0].id),
          JSON.stringify(upset.body.mood),
        );
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] bad lore answers 422 naming the entry, before any model call, and stores nothing`,
    ...sanitizersFor(backend),
    fn: async () => {
      const counting = countingModel();
      await withBackendApp(backend, async (app) => {
        const { w } = await guardWorld(app);
        const before = counting.kinds.length;
        const cases: [unknown[], number, RegExp][] = [
          [[LORE[0], { ...LORE[1], id: "mill" }], 1, /used twice/],
          [[LORE[0], { ...LORE[1], content: "x".repeat(2001) }], 1, /over 2000/],
          [[LORE[0], LORE[1], { ...LORE[2], knownBy: ["brom", "ghost"] }], 2, /ghost/],
          [[{ id: "k", keys: [], content: "never used", knownBy: "all" }], 0, /no keys/],
          [[{ id: "k", content: "no keys field", knownBy: "all" }], 0, /keys/],
        ];
        for (const [entries, index, message] of cases) {
          const res = await call(app, "PUT", `${w}/lore`, { entries });
          assert.equal(res.status, 422, JSON.stringify(res.body));
          assert.equal(res.body.error.details.index, index);
          assert.match(res.body.error.message, message);
        }
        assert.deepEqual((await call(app, "GET", `${w}/lore`)).body.entries, []);
        assert.equal(counting.kinds.length, before, "no model call");
      }, { model: counting.model });
    },
  });
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] relationships, mood and lore cost no model call: respond makes one, perceive one importance call`,
    ...sanitizersFor(backend),
    fn: async () => {
      const counting = countingModel();
      await withBackendApp(backend, async (app) => {
        const { w, a } = await guardWorld(app);
        assert.equal((await call(app, "PUT", `${w}/lore`, { entries: LORE })).status, 200);
        const speaker = { name: "Mara" };
        // The first reply makes and caches the agent summary.
        await call(app, "POST", `${a}/respond`, { message: "Good morning", speaker });
        const calls = () => counting.kinds.length;

        let before = calls();
        const favour = await call(app, "POST", `${a}/respond`, { message: FAVOUR, speaker });
        assert.deepEqual(counting.kinds.slice(before), ["respond"]);
        assert.ok(favour.body.used.lore.length > 0, "lore went in");
        const sent = counting.sent.at(-1)!.prompt.messages[1].content;
        assert.match(sent, /How the character feels about the speaker/);
        assert.match(sent, /The character's mood right now/);
        assert.match(sent, /Curfew rings at ten/);

        before = calls();
        const seen = await call(app, "POST", `${a}/perceive`, {
          observations: [{ text: "Mara gave Brom Hale a warm cloak as a gift" }],
        });
        assert.equal(seen.status, 200);
        assert.deepEqual(counting.kinds.slice(before), ["importance"]);
        const bond = await call(app, "GET", `${a}/relationships/Mara`);
        assert.ok(
          bond.body.evidence.includes(seen.body.memories[0].id),
          "the favour the game reported",
        );
        assert.equal(bond.body.familiarity, 3);

        before = calls();
        await call(app, "GET", `${a}/relationships`);
        await call(app, "GET", a);
        await call(app, "GET", `${w}/lore`);
        assert.equal(calls(), before, "reads make no call");
      }, { model: counting.model });
    },
  });
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] reflecting refreshes the relationship's summary, at no call of its own`,
    ...sanitizersFor(backend),
    fn: async () => {
      const counting = countingModel();
      await withBackendApp(backend, async (app) => {
        const { a } = await guardWorld(app);
        for (const message of [FAVOUR, "I helped your sister mend her roof", "See you tomorrow"]) {
          await call(app, "POST", `${a}/respond`, { message, speaker: { name: "Mara" } });
        }
        const before = await call(app, "GET", `${a}/relationships/Mara`);
        assert.match(before.body.summary, /^Brom Hale has dealt with Mara 3 times/);
        const calls = counting.kinds.length;
        const reflected = await call(app, "POST", `${a}/reflect`, { force: true });
        assert.equal(reflected.status, 200, JSON.stringify(reflected.body));
        const made = counting.kinds.slice(calls);
        assert.deepEqual(
          [...new Set(made)],
          ["reflection_questions", "reflection_insights", "importance"],
          "the reflection's own calls only",
        );
        assert.equal(made.filter((k) => k === "importance").length, 1);
        const about = reflected.body.reflections.filter((r: { description: string }) =>
          r.description.includes("Mara")
        );
        assert.ok(about.length > 0, "the offline insights name Mara");
        const after = await call(app, "GET", `${a}/relationships/Mara`);
        assert.equal(after.body.summary, about.at(-1).description);
        for (const r of about) assert.ok(after.body.evidence.includes(r.id));
        assert.equal(after.body.familiarity, 3, "thinking about someone is no interaction");
      }, { model: counting.model });
    },
  });
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] a world holds 1,000 lore entries; past the total size, 422 names the entry`,
    ...sanitizersFor(backend),
    fn: () =>
      withBackendApp(backend, async (app) => {
        const { w, a } = await guardWorld(app);
        const entries = Array.from({ length: 1000 }, (_, i) => ({
          id: `e${i}`,
          keys: [`place${i}`],
          content: `${i} `.padEnd(390, "lore "),
          knownBy: i % 2 === 0 ? "all" : ["brom"],
        }));
        const put = await call(app, "PUT", `${w}/lore`, { entries });
        assert.equal(put.status, 200, JSON.stringify(put.body).slice(0, 300));
        assert.equal((await call(app, "GET", `${w}/lore`)).body.entries.length, 1000);
        const asked = await call(app, "POST", `${a}/respond`, {
          message: "Have you been to place7 or place998?",
          speaker: { name: "Mara" },
        });
        assert.deepEqual(asked.body.used.lore.map((l: { id: string }) => l.id), ["e7", "e998"]);
        const more = [...entries, ...entries.map((e) => ({ ...e, id: `more${e.id}` }))];
        const over = await call(app, "PUT", `${w}/lore`, { entries: more });
        assert.equal(over.status, 422);
        assert.equal(over.body.error.details.index, 1025);
        assert.match(over.body.error.message, /400000 characters in all/);
      }),
  });
}

Deno.test("close backends", { sanitizeOps: false, sanitizeResources: false }, close);
