import assert from "node:assert/strict";
import { seedPhrases } from "../../src/domain/agent/agent.ts";
import { diffusion } from "../../src/eval/diffusion.ts";
import { networkDensity } from "../../src/eval/network_density.ts";
import { findArea } from "../../src/domain/world/environment.ts";
import { SMALLVILLE_START, smallvilleTown } from "../../towns/smallville.ts";

Deno.test("smallvilleTown() is a valid town of ≥ 10 areas with sub-areas and objects", () => {
  const town = smallvilleTown();
  assert.deepEqual(smallvilleTown(), town, "the same every call");
  assert.equal(town.startTime, SMALLVILLE_START);
  const areas = town.environment.areas;
  assert.ok(areas.length >= 10);
  for (const area of areas) {
    assert.ok(area.subAreas.length > 0, `${area.name} has sub-areas`);
    for (const sub of area.subAreas) assert.ok(sub.objects.length > 0, `${area.name}:${sub.name}`);
  }
  assert.ok(areas.some((a) => a.subAreas.some((s) => s.objects.some((o) => o.state !== ""))));
  assert.ok(areas.filter((a) => a.common).length >= 5, "shops, park, cafe… are common");
});

Deno.test("smallvilleTown() residents live and work in the town and have seed phrases", () => {
  const town = smallvilleTown();
  assert.ok(town.agents.length >= 12);
  assert.equal(new Set(town.agents.map((a) => a.id)).size, town.agents.length, "unique ids");
  const workers = town.agents.filter((a) => a.workplace !== undefined);
  assert.ok(workers.length >= town.agents.length / 2, "most residents have a workplace");
  for (const agent of town.agents) {
    const home = findArea(town.environment, agent.home!);
    assert.ok(home, `${agent.name}'s home exists`);
    assert.ok(home.subAreas.some((s) => s.objects.some((o) => o.name === "bed")), "a bed at home");
    if (agent.workplace !== undefined) {
      assert.ok(findArea(town.environment, agent.workplace), `${agent.name}'s workplace exists`);
    }
    assert.ok(agent.age !== undefined && agent.traits!.length > 0);
    const seeds = seedPhrases(agent.description);
    assert.ok(seeds.length >= 4, `${agent.name} has seeds`);
    // Each seed is a memory on its own, so each names its agent.
    const first = agent.name.split(" ")[0];
    for (const seed of seeds) assert.ok(seed.includes(first), `"${seed}" names ${agent.name}`);
  }
});

Deno.test("smallvilleTown() seeds each scenario fact in its originator only", () => {
  const town = smallvilleTown();
  const memories = new Map(town.agents.map((a) => [a.id as string, seedPhrases(a.description)]));
  for (const fact of town.facts) {
    assert.deepEqual(diffusion(fact, memories).knows, [fact.originator], fact.id);
  }
  assert.equal(town.party.host, "lucia");
  assert.equal(town.party.area, town.agents.find((a) => a.id === "lucia")!.workplace);
  assert.deepEqual([town.party.start, town.party.end], [
    "2023-02-14T17:00:00",
    "2023-02-14T19:00:00",
  ]);
  const people = town.agents.map((a) => ({ id: a.id as string, name: a.name }));
  const density = networkDensity(people, memories).density;
  assert.ok(
    density > 0.1 && density < 0.2,
    `starting density ${density} is near the paper's 0.167`,
  );
});
