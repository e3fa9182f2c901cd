import assert from "node:assert/strict";
import { startBackends } from "../_helpers/backends.ts";
import { sanitizersFor, withBackendApp } from "../_helpers/backend_app.ts";
import { call, importArchive } from "../_helpers/http_call.ts";
import { countingModel } from "../_helpers/test_deps.ts";
import { maraV2 } from "../src/domain/persona/_card_fixture.ts";
import { bondsKey, loreKey } from "../../src/app/mod.ts";
import type { AgentScope } from "../../src/domain/mod.ts";

const { backends, close } = await startBackends();

type App = Parameters<typeof call>[0];

async function town(app: App) {
  const world = await call(app, "POST", "/v1/worlds", {
    name: "Farrow",
    startTime: "2023-02-13T08:00:00",
  });
  const w = `/v1/worlds/${world.body.id}`;
  for (
    const [id, name, description] of [
      ["klaus", "Klaus Mueller", "Klaus Mueller studies at the college"],
      ["maria", "Maria Lopez", "Maria Lopez studies physics and streams games"],
    ]
  ) {
    assert.equal((await call(app, "POST", `${w}/agents`, { id, name, description })).status, 201);
  }
  return { id: world.body.id as string, w };
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] a card's lorebook becomes lore its agent knows; deleting the agent takes it and its relationships away`,
    ...sanitizersFor(backend),
    fn: () =>
      withBackendApp(backend, async (app, deps) => {
        const { id, w } = await town(app);
        const shared = {
          id: "guild",
          keys: ["guild"],
          content: "The Guild meets on Mondays.",
          knownBy: ["klaus", "maria"],
        };
        assert.equal((await call(app, "PUT", `${w}/lore`, { entries: [shared] })).status, 200);
        const made = await call(app, "POST", `${w}/agents/import?id=mara`, maraV2());
        assert.equal(made.status, 201, JSON.stringify(made.body));
        const lore = (await call(app, "GET", `${w}/lore`)).body.entries;
        assert.deepEqual(lore.map((e: { id: string; knownBy: unknown }) => [e.id, e.knownBy]), [
          ["guild", ["klaus", "maria"]],
          ["mara.lore.1", ["mara"]],
          ["mara.lore.2", ["mara"]],
        ]);
        const asked = await call(app, "POST", `${w}/agents/mara/respond`, {
          message: "Where is the Moonstone hidden?",
          speaker: { name: "a stowaway" },
        });
        assert.equal(asked.status, 200, JSON.stringify(asked.body));
        assert.deepEqual(asked.body.used.lore, [{ id: "mara.lore.1", matched: "Moonstone" }]);
        const other = await call(app, "POST", `${w}/agents/klaus/respond`, {
          message: "Where is the Moonstone hidden?",
          speaker: { name: "a stowaway" },
        });
        assert.deepEqual(other.body.used.lore, [], "only mara knows her lorebook");

        const scope = { worldId: id, agentId: "mara" } as AgentScope;
        assert.ok(await deps.storage.documents.get(bondsKey(scope)), "mara met the stowaway");
        assert.equal((await call(app, "DELETE", `${w}/agents/mara`)).status, 200);
        assert.equal(await deps.storage.documents.get(bondsKey(scope)), null);
        assert.deepEqual((await call(app, "GET", `${w}/lore`)).body.entries, [shared]);

        assert.equal((await call(app, "DELETE", `${w}/agents/maria`)).status, 200);
        assert.deepEqual((await call(app, "GET", `${w}/lore`)).body.entries, [
          { ...shared, knownBy: ["klaus"] },
        ]);
        assert.equal((await call(app, "DELETE", `${w}/agents/klaus`)).status, 200);
        const left = await deps.storage.documents.get<{ entries: unknown[] }>(loreKey(id));
        assert.deepEqual(left?.value.entries, [], "no one knows it");
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] a conversation makes agent relationships both ways, carries lore on its lines, and export/import keeps it all`,
    ...sanitizersFor(backend),
    fn: () =>
      withBackendApp(backend, async (app) => {
        const { id, w } = await town(app);
        const entries = [{
          id: "exam",
          keys: ["exam"],
          content: "The physics exam is on Friday.",
          knownBy: "all",
        }];
        assert.equal((await call(app, "PUT", `${w}/lore`, { entries })).status, 200);
        const talk = await call(app, "POST", `${w}/conversations`, {
          participants: ["klaus", "maria"],
          topic: "the physics exam",
        });
        assert.equal(talk.status, 200, JSON.stringify(talk.body));
        assert.deepEqual(talk.body.lines[0].used, { lore: ["exam"] }, "the topic names it");

        const klaus = await call(app, "GET", `${w}/agents/klaus/relationships/maria`);
        assert.equal(klaus.status, 200, JSON.stringify(klaus.body));
        assert.equal(klaus.body.kind, "agent");
        assert.equal(klaus.body.with, "maria");
        assert.equal(klaus.body.name, "Maria Lopez");
        const heard = talk.body.lines.filter((l: { speaker: string }) => l.speaker === "maria");
        assert.equal(klaus.body.familiarity, heard.length, "one interaction per line heard");
        const maria = await call(app, "GET", `${w}/agents/maria/relationships/Klaus%20Mueller`);
        assert.equal(maria.body.with, "klaus");

        const text = await (await app.request(`${w}/export`)).text();
        const copy = await importArchive(app, text, "?id=farrow-b");
        assert.equal(copy.status, 201, JSON.stringify(copy.body));
        const b = `/v1/worlds/farrow-b`;
        assert.deepEqual(
          (await call(app, "GET", `${b}/agents/klaus/relationships`)).body,
          (await call(app, "GET", `${w}/agents/klaus/relationships`)).body,
        );
        assert.deepEqual((await call(app, "GET", `${b}/lore`)).body.entries, entries);
        assert.notEqual(id, "farrow-b");
      }),
  });

  Deno.test({
    name: `[${backend.name}] interviews carry the lore the agent knows and report it per answer`,
    ...sanitizersFor(backend),
    fn: () =>
      withBackendApp(backend, async (app) => {
        const { w } = await town(app);
        const entries = [{
          id: "college",
          keys: [],
          constant: true,
          content: "The college closes for winter break on Friday.",
          knownBy: ["klaus"],
        }];
        assert.equal((await call(app, "PUT", `${w}/lore`, { entries })).status, 200);
        const asked = await call(app, "POST", `${w}/agents/klaus/interview`, {
          categories: ["self_knowledge"],
        });
        assert.equal(asked.status, 200, JSON.stringify(asked.body));
        for (const answer of asked.body.transcript) {
          assert.deepEqual(answer.used, { lore: [{ id: "college", matched: null }] });
        }
        const maria = await call(app, "POST", `${w}/agents/maria/interview`, {
          categories: ["self_knowledge"],
        });
        assert.deepEqual(maria.body.transcript[0].used, { lore: [] });
      }),
  });
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] the reaction decision sees the relationship with the agent observed, at no extra call`,
    ...sanitizersFor(backend),
    fn: async () => {
      const counting = countingModel();
      await withBackendApp(backend, async (app) => {
        const { w } = await town(app);
        const told = await call(app, "POST", `${w}/agents/klaus/respond`, {
          message: "Thank you for helping me with my physics homework, you are a good friend",
          speaker: { name: "Maria Lopez" },
        });
        assert.equal(told.status, 200);
        const bond = await call(app, "GET", `${w}/agents/klaus/relationships/maria`);
        assert.equal(bond.body.kind, "agent", "a speaker with an agent's name is that agent");
        const before = counting.kinds.length;
        const reacted = await call(app, "POST", `${w}/agents/klaus/react`, {
          observations: ["Maria Lopez is reading in the library"],
          observed: { agent: "maria", status: "reading" },
        });
        assert.equal(reacted.status, 200, JSON.stringify(reacted.body));
        const reaction = counting.sent.slice(before).filter((s) => s.prompt.kind === "reaction");
        assert.equal(reaction.length, 1);
        const input = reaction[0].prompt.input as { bond: { trust: number } | null };
        assert.equal(input.bond?.trust, bond.body.trust);
        assert.match(reaction[0].prompt.messages[1].content, /How the character feels about them/);
      }, { model: counting.model });
    },
  });
}

Deno.test("close backends", { sanitizeOps: false, sanitizeResources: false }, close);
