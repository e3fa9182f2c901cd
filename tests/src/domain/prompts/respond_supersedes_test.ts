/** The reply prompt's `supersedes` (chat only) and the offline responder's answer to it. */
import assert from "node:assert/strict";
import { answerRespond } from "../../../../lib/offline/responders/respond.ts";
import {
  buildRespondPrompt,
  type RespondPromptInput,
} from "../../../../src/domain/prompts/respond.ts";
import { promptTexts } from "../../../_helpers/prompt_texts.ts";

const MEMORIES = ["Sam works at the pharmacy", "The bakery is on Elm Street"].map((text) => ({
  text,
  when: "2023-02-13T08:00:00",
  source: "seen by the character",
}));

function input(overrides: Partial<RespondPromptInput> = {}): RespondPromptInput {
  return {
    agentName: "Mira Stone",
    mode: "chat",
    speaker: { name: "Ada Quill", description: null },
    now: "2023-02-13T09:00:00",
    anchor: {
      summary: "Name: Mira Stone\nKeeps the inn.",
      nickname: "",
      globalSummary: "",
      coreTraits: [],
      relationships: [],
    },
    facets: [],
    memories: MEMORIES,
    plan: [],
    cardNotes: [],
    history: [],
    message: "The bakery has moved to Oak Avenue",
    boundaryHints: [],
    disclosure: false,
    ...overrides,
  };
}

Deno.test("buildRespondPrompt() asks which listed memory the message updates in chat only", () => {
  const chat = buildRespondPrompt(input());
  assert.match(promptTexts(chat, "respond", "main").system, /"supersedes"/);
  assert.equal(chat.schema.parse({ ...answerRespond(input()), supersedes: 2 }).supersedes, 2);
  for (const mode of ["interview", "inner_voice"] as const) {
    const other = buildRespondPrompt(input({ mode }));
    assert.doesNotMatch(promptTexts(other, "respond", "main").system, /supersedes/);
    assert.equal(
      other.schema.parse({ ...answerRespond(input()), supersedes: 2 }).supersedes,
      undefined,
    );
  }
});

Deno.test("answerRespond() names the memory the message updates, in chat, else 0", () => {
  assert.equal(answerRespond(input()).supersedes, 2);
  assert.equal(answerRespond(input({ message: "Sam now works at the library" })).supersedes, 1);
  assert.equal(answerRespond(input({ message: "Lovely weather today!" })).supersedes, 0);
  assert.equal(answerRespond(input({ mode: "interview" })).supersedes, undefined);
});
