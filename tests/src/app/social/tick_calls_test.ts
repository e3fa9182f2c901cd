import assert from "node:assert/strict";
import { tickWorld } from "../../../../src/app/simulation/tick_world.ts";
import { bondsKey, loadBonds, putLore } from "../../../../src/app/social/mod.ts";
import type { AgentId, WorldId } from "../../../../src/domain/ids.ts";
import type { Bonds } from "../../../../src/domain/social/mod.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { makeTown, recordingModel, RESIDENTS, type SeenCall } from "../../domain/_town_fixture.ts";

const TICKS = 8;

/** Every agent already close to and trusting every other one, as after weeks together. */
function warmBonds(self: string): Bonds {
  const relationships = Object.fromEntries(
    RESIDENTS.filter((r) => r.name !== self).map((r) => [r.name.toLowerCase(), {
      name: r.name,
      familiarity: 12,
      trust: 0.8,
      affinity: 0.7,
      summary: null,
      evidence: [],
      firstMetAt: "2023-02-01T08:00:00",
      updatedAt: "2023-02-12T18:00:00",
    }]),
  );
  return { relationships, mood: null };
}

/** The calls of `TICKS` ticks of the fixture town, in a stable order. */
async function tickCalls(social: boolean): Promise<{ calls: string[]; bonds: (Bonds | null)[] }> {
  const { model, calls } = recordingModel();
  await using deps = await makeTestDeps({ model });
  const id: WorldId = await makeTown(deps);
  if (social) {
    await putLore(deps, id, {
      entries: [
        {
          id: "party",
          keys: ["party", "cafe"],
          content: "The party starts at five.",
          knownBy: "all",
        },
        { id: "rent", keys: [], constant: true, content: "Rent is due Friday.", knownBy: "all" },
      ],
    });
    for (const r of RESIDENTS) {
      const scope = { worldId: id, agentId: r.id as AgentId };
      await deps.storage.documents.delete(bondsKey(scope));
      await deps.storage.documents.create(bondsKey(scope), warmBonds(r.name));
    }
  }
  calls.length = 0;
  for (let i = 0; i < TICKS; i++) await tickWorld(deps, id, { tickId: `t${i}` });
  const bonds = await Promise.all(
    RESIDENTS.map((r) => loadBonds(deps, { worldId: id, agentId: r.id as AgentId })),
  );
  return { calls: calls.map(key).sort(), bonds };
}

function key(c: SeenCall): string {
  return `${c.kind} ${c.agentId ?? "-"} ${c.operation}`;
}

Deno.test("a tick makes the same model calls with lore and warm relationships as without: they cost none", async () => {
  const plain = await tickCalls(false);
  const social = await tickCalls(true);
  assert.ok(plain.calls.length > 10, `${plain.calls.length} calls`);
  const kinds = new Set(plain.calls.map((c) => c.split(" ")[0]));
  for (const kind of ["reaction", "dialogue_line", "importance"]) {
    assert.ok(kinds.has(kind), `the ticks made ${kind} calls, which read relationships and lore`);
  }
  assert.deepEqual(social.calls, plain.calls);
  // The ticks still kept the social state: the bonds set before are there and grew where people met.
  assert.ok(social.bonds.every((b) => b !== null && Object.keys(b.relationships).length >= 2));
});
