import assert from "node:assert/strict";
import { OfflineJudge } from "../../../lib/offline/offline_judge.ts";
import {
  buildJudgeKnowledgePrompt,
  buildJudgeRankingPrompt,
  buildJudgeScorePrompt,
  type JudgeScoreInput,
} from "../../../src/domain/mod.ts";

const judge = new OfflineJudge();
const at = { operation: "judge.test" };
const character = { name: "Isabella Rodriguez", profile: "owns Hobbs Cafe" };

async function score(input: Omit<JudgeScoreInput, "character">): Promise<number> {
  const { value } = await judge.complete(buildJudgeScorePrompt({ ...input, character }), at);
  assert.match(value.reason, /^Offline rule-based judge: /);
  return value.score;
}

Deno.test("the offline judge scores by rule: similar answers, uncertainty and leaks move the scores", async () => {
  const same = "I run Hobbs Cafe and I'm planning a Valentine's Day party there.";
  const other = "The weather is nice and the river is high this spring.";
  assert.ok(
    await score({
      metric: "MA-SI",
      probe: "Who are you?",
      answer: same,
      comparison: { label: "anon", text: same },
    }) >
      await score({
        metric: "MA-SI",
        probe: "Who are you?",
        answer: same,
        comparison: { label: "anon", text: other },
      }),
  );
  const forbidden = { label: "forbidden", text: "Sam Moore wins the mayoral election" };
  const leak = await score({
    metric: "MB-AL",
    probe: "Who won?",
    answer: "Sam Moore wins the mayoral election, of course.",
    reference: forbidden,
  });
  const held = await score({
    metric: "MB-AL",
    probe: "Who won?",
    answer: "I can't know that yet; the vote hasn't happened.",
    reference: forbidden,
  });
  assert.ok(held > leak, `${held} > ${leak}`);
  assert.equal(
    await score({ metric: "MB-CR", probe: "Who won?", answer: "I'm not sure, honestly." }),
    10,
  );
  assert.equal(
    await score({ metric: "MB-CR", probe: "Who won?", answer: "Sam won by a mile." }),
    3,
  );
  assert.ok(
    await score({
      metric: "ME-HLE",
      probe: "Hi",
      answer: "Oh, hello! I'm just wiping down the counter, what can I get you?",
    }) >
      await score({ metric: "ME-HLE", probe: "Hi", answer: "- item one\n- item two" }),
  );
});

Deno.test("the offline judge ranks specific answers above vague ones and reads knowledge from answers", async () => {
  const { value } = await judge.complete(
    buildJudgeRankingPrompt({
      character: "Klaus",
      question: "What are you working on?",
      answers: [
        { id: "a", text: "I don't know." },
        {
          id: "b",
          text:
            "I'm writing my paper on gentrification for Professor Wolfe; I've drafted two chapters.",
        },
      ],
    }),
    at,
  );
  assert.deepEqual(value.ranking, ["b", "a"]);
  const fact = await judge.complete(
    buildJudgeKnowledgePrompt({
      agent: "Klaus",
      question: "Have you heard about a party?",
      answer: "Klaus Mueller: Yes, Isabella is hosting a Valentine's Day party at Hobbs Cafe.",
      target: { kind: "fact", fact: "Isabella is hosting a Valentine's Day party at Hobbs Cafe" },
    }),
    at,
  );
  assert.equal(fact.value.knows, true);
  const people = await judge.complete(
    buildJudgeKnowledgePrompt({
      agent: "Klaus",
      question: "Whom do you know?",
      answer: "I know Maria and Isabella well. I don't know Sam at all.",
      target: {
        kind: "people",
        candidates: ["Maria Lopez", "Isabella Rodriguez", "Sam Moore", "Tom Moreno"],
      },
    }),
    at,
  );
  assert.deepEqual(people.value.names, ["Maria Lopez", "Isabella Rodriguez"]);
});
