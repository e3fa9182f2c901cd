/** A card import is all or nothing: refused before spending, or undone when a write fails. */
import assert from "node:assert/strict";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { CreateAgentInput } from "../../../../src/domain/agent/agent.ts";
import { SimulacraError, StoreUnavailableError } from "../../../../src/domain/errors.ts";
import { AgentId } from "../../../../src/domain/ids.ts";
import { parseCardText } from "../../../../src/domain/persona/character_card.ts";
import { importCard } from "../../../../src/app/persona/card_import.ts";
import type { DocumentStore } from "../../../../src/ports/document_store.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { maraV3 } from "../../domain/persona/_card_fixture.ts";
import { coreWorld } from "../../../_helpers/core_world.ts";

Deno.test("parseCardText() refuses a card nested 8,000 levels deep before any model call", () => {
  const card = maraV3() as { data: Record<string, unknown> };
  // The deep part is written by hand: JSON.stringify itself would overflow on such a value.
  const text = `{"spec":"chara_card_v3","data":${
    JSON.stringify({ ...card.data, extensions: {} }).slice(0, -3)
  }{"deep":${'{"n":'.repeat(8_000)}1${"}".repeat(8_000)}}}}`;
  assert.throws(
    () => parseCardText(text),
    (e: unknown) =>
      e instanceof SimulacraError && e.code === "invalid_request" && /64 levels/.test(e.message),
  );
});

Deno.test("importCard() that fails while storing leaves nothing for the next agent of that id", async () => {
  await using deps = await makeTestDeps();
  const { id: worldId } = await coreWorld(deps, { id: "sky", name: "Sky" });
  const documents = deps.storage.documents;
  const failing: DocumentStore = {
    get: (k) => documents.get(k),
    list: (c, s) => documents.list(c, s),
    create: (k, v) =>
      k.collection === "personas"
        ? Promise.reject(new StoreUnavailableError("Cannot store the persona: the store failed"))
        : documents.create(k, v),
    replace: (k, v, o) => documents.replace(k, v, o),
    delete: (k) => documents.delete(k),
    deleteAll: (c, s) => documents.deleteAll(c, s),
  };
  const broken = {
    ...deps,
    storage: Object.assign(Object.create(deps.storage), { documents: failing }),
  };
  await assert.rejects(
    importCard(broken, parseCardText(JSON.stringify(maraV3())), {
      worldId,
      id: AgentId.parse("mara"),
    }),
    (e: unknown) => e instanceof SimulacraError && e.code === "store_unavailable",
  );
  const scope = { worldId, agentId: AgentId.parse("mara") };
  assert.equal(
    await deps.storage.documents.get({ collection: "agents", scope: worldId, id: "mara" }),
    null,
  );
  assert.equal(await deps.storage.memories.count(scope), 0, "no seed left behind");
  assert.deepEqual(await deps.storage.vectors.ids(scope), [], "no vector left behind");

  const fresh = await createAgent(
    deps,
    worldId,
    CreateAgentInput.parse({ id: "mara", name: "Mara", description: "Mara flies kites" }),
  );
  const stored = await deps.storage.memories.all(scope);
  assert.deepEqual(stored.map((m) => m.id).sort(), fresh.seeds.map((m) => m.id).sort());
});
