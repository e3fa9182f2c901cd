import assert from "node:assert/strict";
import { LocalEmbedder } from "../../../lib/offline/local_embedder.ts";
import { listAgents } from "../../../src/agents/agent.ts";
import { ModelUnavailableError } from "../../../src/errors.ts";
import { WorldId } from "../../../src/ids.ts";
import type { Embedder } from "../../../src/ports/embedder.ts";
import { loadEnvironment } from "../../../src/world/environment.ts";
import {
  createWorldFromTemplate,
  templateTown,
} from "../../../src/templates/create_from_template.ts";
import { CreateWorldInput } from "../../../src/world/world.ts";
import { makeTestDeps } from "../../_helpers/test_deps.ts";

Deno.test("createWorldFromTemplate() without a template creates a bare world", async () => {
  await using deps = await makeTestDeps();
  const world = await createWorldFromTemplate(
    deps,
    CreateWorldInput.parse({ id: "bare", name: "Bare", startTime: "2023-03-01T09:00:00" }),
  );
  assert.equal(world.clock.now, "2023-03-01T09:00:00");
  assert.equal(await loadEnvironment(deps, "bare"), null);
  assert.deepEqual(await listAgents(deps, WorldId.parse("bare")), []);
});

Deno.test("createWorldFromTemplate() builds the template's environment and every agent", async () => {
  await using deps = await makeTestDeps();
  const town = templateTown("smallville");
  const world = await createWorldFromTemplate(
    deps,
    CreateWorldInput.parse({ id: "town", name: "Town", template: "smallville" }),
    { concurrency: 3 },
  );
  assert.equal(world.clock.now, town.startTime);
  assert.deepEqual(await loadEnvironment(deps, "town"), town.environment);
  const agents = await listAgents(deps, WorldId.parse("town"));
  assert.deepEqual(agents.map((a) => a.id).sort(), town.agents.map((a) => a.id).sort());
});

Deno.test("createWorldFromTemplate() stops at the first agent that cannot be created", async () => {
  const local = new LocalEmbedder({ dimensions: 384 });
  let calls = 0;
  const flaky: Embedder = {
    info: local.info,
    embed(texts, attribution) {
      if (++calls === 3) {
        return Promise.reject(new ModelUnavailableError("model_unavailable", "Embedder down"));
      }
      return local.embed(texts, attribution);
    },
  };
  await using deps = await makeTestDeps({ embedder: flaky });
  await assert.rejects(
    createWorldFromTemplate(
      deps,
      CreateWorldInput.parse({ id: "half", name: "Half", template: "smallville" }),
      { concurrency: 1 },
    ),
    ModelUnavailableError,
  );
  const made = await listAgents(deps, WorldId.parse("half"));
  // The agents made before the failure stay: the world is not rolled back.
  assert.ok(made.length > 0 && made.length < 25, `${made.length} agents`);
});
