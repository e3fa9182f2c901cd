import assert from "node:assert/strict";
import { ndjsonLines } from "../lib/ndjson_lines.ts";
import { importWorld } from "../src/archive/import_world.ts";
import { WorldId } from "../src/ids.ts";
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
