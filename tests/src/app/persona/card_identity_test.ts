/**
 * A character imported from a card answers in character from who its card says it is: its
 * occupation in the summary and the interview, and no description of itself as a gesture.
 */
import assert from "node:assert/strict";
import { importCard } from "../../../../src/app/persona/card_import.ts";
import { interview } from "../../../../src/app/persona/interview.ts";
import { respond } from "../../../../src/app/persona/respond.ts";
import { cachedSummary } from "../../../../src/app/cognition/agent_summary.ts";
import { parseCardObject } from "../../../../src/domain/persona/character_card.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { coreWorld } from "../../../_helpers/core_world.ts";

Deno.test("a card character speaks from its card's identity, and its self-description is no gesture", async () => {
  await using deps = await makeTestDeps();
  const { id: worldId } = await coreWorld(deps, { id: "coast", name: "Coast" });
  const imported = await importCard(
    deps,
    parseCardObject({
      name: "Tom",
      description:
        "{{char}} is the lighthouse keeper of Gull Point.\n{{char}} rows to the village on Sundays.",
      personality: "gruff, kind, watchful",
    }),
    { worldId },
  );
  const scope = { worldId, agentId: imported.agent.id };
  const hello = await respond(deps, {
    scope,
    input: { message: "Hello, Tom.", speaker: { name: "Sam" } },
  });
  assert.doesNotMatch(hello.reply, /\(/, hello.reply);
  assert.match(hello.text, /^Hello, Sam\. What can I do for you\?/);
  const summary = await cachedSummary(deps, imported.agent);
  assert.equal(summary?.occupation, "Tom is the lighthouse keeper of Gull Point.");
  const asked = await interview(deps, scope, { categories: ["self_knowledge"] });
  const job = asked.transcript.find((t) => t.question === "What is your job?")!;
  assert.match(job.answer, /^Tom: I'm the lighthouse keeper of Gull Point\./);
});
