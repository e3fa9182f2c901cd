/**
 * The agent summary starts from the agent's stable identity: after a week of fresher memories
 * that win every retrieval, it still says what the agent does, on both storage backends; a
 * card's persona is part of the identity; the interview answers "What is your job?" from it.
 */
import assert from "node:assert/strict";
import { agentSummary } from "../../../../src/app/cognition/agent_summary.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { prepareMemories, writeMemories } from "../../../../src/app/memory/ingest.ts";
import { putPersona } from "../../../../src/app/persona/persona_store.ts";
import { interview } from "../../../../src/app/persona/interview.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import type { AgentSummaryInput } from "../../../../src/domain/prompts/agent_summary.ts";
import { AgentId, type AgentScope, type WorldId } from "../../../../src/domain/ids.ts";
import { Persona } from "../../../../src/domain/persona/persona.ts";
import { addMinutes } from "../../../../src/domain/time/mod.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import type { GameTime } from "../../../../src/domain/time/mod.ts";
import { type Backend, startBackends } from "../../../_helpers/backends.ts";
import { sanitizersFor } from "../../../_helpers/backend_app.ts";
import { countingModel, makeTestDeps } from "../../../_helpers/test_deps.ts";
import { isabellaPersona } from "../../domain/persona/_persona_fixture.ts";

const { backends, close } = await startBackends();
const START = "2023-02-13T07:00:00" as GameTime;

const LUCIA = {
  id: AgentId.parse("lucia"),
  name: "Lucia Ferreira",
  age: 34,
  traits: ["warm", "organized"],
  description:
    "Lucia Ferreira owns Marigold Cafe and likes to know every regular by name; Lucia Ferreira lives above the bakery on Elm Street",
};

/** Fresh deps on `backend`, recording the prompts sent, and a world that starts at START. */
async function setup(backend: Backend, settings: Record<string, unknown> = {}) {
  const rec = countingModel();
  const deps = await makeTestDeps({ storage: await backend.open(), model: rec.model });
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({ name: "T", startTime: START, settings }),
  );
  return { rec, deps, world };
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] a week of fresher memories does not push who the agent is out of its summary`,
    ...sanitizersFor(backend),
    fn: async () => {
      const { rec, deps, world } = await setup(backend, { autoReflect: false });
      await using _ = deps;
      const { agent } = await createAgent(deps, world.id as WorldId, LUCIA);
      const scope: AgentScope = { worldId: world.id as WorldId, agentId: agent.id };
      // 300 sightings and talk over seven days, each fresher than the seeds and as important.
      const items = Array.from({ length: 300 }, (_, n) => ({
        description: n % 3 === 0
          ? `Lucia Ferreira has been talking with Sofia Marchetti about the weather (${n})`
          : `Lucia Ferreira is wiping down table ${n % 12} in the cafe`,
        kind: "observation" as const,
        provenance: "witnessed" as const,
        at: addMinutes(START, 30 + n * 33),
        importance: 6,
      }));
      const prepared = await prepareMemories(deps, agent, { items });
      await writeMemories(deps, scope, { prepared });

      const at = addMinutes(START, 7 * 24 * 60);
      const { summary } = await agentSummary(deps, { world, agent, at });
      const sent = rec.sent.filter((s) => s.prompt.kind === "agent_summary").at(-1)!;
      const input = sent.prompt.input as AgentSummaryInput;
      const recalled = [...input.core, ...input.occupation, ...input.feeling];
      assert.ok(
        recalled.every((m) => !m.includes("owns Marigold Cafe")),
        "the seeds lose every retrieval to the week's memories",
      );
      assert.deepEqual(input.identity.description, [
        "Lucia Ferreira owns Marigold Cafe and likes to know every regular by name",
        "Lucia Ferreira lives above the bakery on Elm Street",
      ]);
      assert.equal(summary.occupation, "Lucia Ferreira owns Marigold Cafe.");
      assert.doesNotMatch(summary.text, /not known yet|Little is known/);
      assert.match(
        summary.text,
        /^Name: Lucia Ferreira \(age 34\)\nInnate traits: warm, organized\n/,
      );
    },
  });

  Deno.test({
    name:
      `[${backend.name}] a persona's background is part of the identity a summary starts from, remade when it is set`,
    ...sanitizersFor(backend),
    fn: async () => {
      const { rec, deps, world } = await setup(backend);
      await using _ = deps;
      const { agent } = await createAgent(deps, world.id as WorldId, {
        id: AgentId.parse("isabella"),
        name: "Isabella Rodriguez",
        description: "Isabella Rodriguez loves a good party",
      });
      const scope: AgentScope = { worldId: world.id as WorldId, agentId: agent.id };
      await agentSummary(deps, { world, agent, at: START });
      // Setting a persona changes who the agent is: the cached summary is made again from it.
      await putPersona(deps, scope, Persona.parse(isabellaPersona()));
      await agentSummary(deps, { world, agent, at: START });
      const made = rec.sent.filter((s) => s.prompt.kind === "agent_summary");
      assert.equal(made.length, 2);
      const input = made[1].prompt.input as AgentSummaryInput;
      assert.equal(input.identity.background, isabellaPersona().global_summary);
    },
  });

  Deno.test({
    name:
      `[${backend.name}] asked on day one "What is your job?", the interview answers from identity`,
    ...sanitizersFor(backend),
    fn: async () => {
      const { deps, world } = await setup(backend);
      await using _ = deps;
      const { agent } = await createAgent(deps, world.id as WorldId, LUCIA);
      const result = await interview(deps, { worldId: world.id as WorldId, agentId: agent.id }, {
        categories: ["self_knowledge"],
      });
      const job = result.transcript.find((t) => t.question === "What is your job?")!;
      assert.equal(job.answer, "Lucia Ferreira: I own Marigold Cafe.");
      assert.equal(job.bounded, false);
      const home = result.transcript.find((t) => /share your home/.test(t.question))!;
      assert.equal(home.answer, "Lucia Ferreira: I live above the bakery on Elm Street.");
      const self = result.transcript.find((t) => t.question === "Tell me about yourself.")!;
      assert.match(self.answer, /^Lucia Ferreira: I'm Lucia Ferreira\. I own Marigold Cafe\./);
      for (const t of result.transcript) assert.doesNotMatch(t.answer, /never heard of that/);
    },
  });
}

Deno.test({
  name: "agent summary identity tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
