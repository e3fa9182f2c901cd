/**
 * The offline importance responder names the earlier memory each event updates, as the prompt
 * asks when it shows earlier memories (supersession, README "Memory upkeep").
 */
import assert from "node:assert/strict";
import { answerImportance } from "../../../lib/offline/responders/importance.ts";
import {
  DISTRACTORS,
  FACT_UPDATES,
  UNRELATED,
} from "../../src/app/memory/_fact_updates_fixture.ts";

const EARLIER = [...FACT_UPDATES.map((f) => f.before), ...DISTRACTORS];

Deno.test("the offline importance responder names the fact each update changes", () => {
  const answer = answerImportance({
    agentName: "Mira",
    observations: FACT_UPDATES.map((f) => f.after),
    earlier: EARLIER,
  });
  assert.equal(answer.scores.length, FACT_UPDATES.length);
  assert.deepEqual(
    answer.supersedes!.map((n) => EARLIER[n - 1]),
    FACT_UPDATES.map((f) => f.before),
  );
});

Deno.test("the offline importance responder names nothing for news that update no fact", () => {
  const answer = answerImportance({
    agentName: "Mira",
    observations: [...UNRELATED, ...DISTRACTORS],
    earlier: FACT_UPDATES.map((f) => f.before),
  });
  assert.deepEqual(answer.supersedes, [...UNRELATED, ...DISTRACTORS].map(() => 0));
  // Two things true of one person at once: neither updates the other.
  const both = answerImportance({
    agentName: "Klaus",
    observations: ["Klaus Mueller is reading a book on gentrification"],
    earlier: ["Klaus Mueller is writing a research paper on gentrification"],
  });
  assert.deepEqual(both.supersedes, [0]);
  // The same fact again is a repeat, not an update.
  const again = answerImportance({
    agentName: "Mira",
    observations: ["The well is dry"],
    earlier: ["The well is dry"],
  });
  assert.deepEqual(again.supersedes, [0]);
  // Without earlier memories, only scores and valence (the prompt asked for nothing else).
  assert.deepEqual(Object.keys(answerImportance({ observations: ["x"] })), ["scores", "valence"]);
});

Deno.test("the offline importance responder reads what a conversation line states", () => {
  // Each pair's news as Sam would say it, a question first; the earlier facts as Mira saw them,
  // or as someone said them to her.
  const lines = FACT_UPDATES.map((f) =>
    `Sam Moore said to Mira Stone: "Have you heard? ${f.after}. Anyway, how are you?"`
  );
  const earlier = EARLIER.map((e, i) => i % 2 === 0 ? e : `Ana Ruiz said to Mira Stone: "${e}."`);
  const answer = answerImportance({ agentName: "Mira", observations: lines, earlier });
  assert.deepEqual(
    answer.supersedes!.map((n) => EARLIER[n - 1]),
    FACT_UPDATES.map((f) => f.before),
  );
  const smallTalk = answerImportance({
    agentName: "Mira",
    observations: ['Sam Moore said to Mira Stone: "Hi Mira! How have you been?"'],
    earlier,
  });
  assert.deepEqual(smallTalk.supersedes, [0]);
});
