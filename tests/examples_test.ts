import assert from "node:assert/strict";
import { ndjsonLines } from "../lib/ndjson_lines.ts";
import { importWorld } from "../src/app/archive/import_world.ts";
import { WorldId } from "../src/domain/ids.ts";
import { smallvilleTown } from "../towns/mod.ts";
import { makeTestDeps } from "./_helpers/test_deps.ts";

Deno.test("examples/smallville.ndjson (the example town after an hour) imports into a fresh store", async () => {
  await using deps = await makeTestDeps();
  const file = await Deno.open(new URL("../examples/smallville.ndjson", import.meta.url));
  const result = await importWorld(deps, ndjsonLines(file.readable), {
    id: WorldId.parse("smallville"),
  });
  assert.equal(result.counts.agents, 25);
  assert.ok(result.counts.memories > 500);
  assert.equal(result.world.id, "smallville");
  assert.equal(result.reembedded, 0, "made with the local embedder the tests use");
});

Deno.test("examples/smallville.ndjson was made from the town the template describes now", async () => {
  const text = await Deno.readTextFile(new URL("../examples/smallville.ndjson", import.meta.url));
  const lines = text.trim().split("\n").map((line) => JSON.parse(line));
  const town = smallvilleTown();
  const stale =
    "examples/smallville.ndjson is stale: remake it with `deno task simulate --hours 1 --seed 1 --save examples/smallville.ndjson`";
  const agents = lines.filter((l) => l.type === "document" && l.collection === "agents")
    .map((l) => l.value);
  assert.deepEqual(agents.map((a) => a.id).sort(), town.agents.map((a) => a.id).sort(), stale);
  for (const input of town.agents) {
    const agent = agents.find((a) => a.id === input.id);
    const { id, name, age, traits, description, home, workplace } = agent;
    assert.deepEqual(
      { id, name, age, traits, description, home, workplace: workplace ?? null },
      { ...input, workplace: input.workplace ?? null },
      stale,
    );
    const seeds = lines
      .filter((l) =>
        l.type === "memory" && l.memory.agentId === input.id && l.memory.kind === "seed"
      )
      .map((l) => l.memory.description);
    assert.deepEqual(seeds, input.description.split(";").map((s) => s.trim()), stale);
  }
});
