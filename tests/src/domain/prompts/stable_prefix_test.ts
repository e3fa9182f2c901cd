/**
 * @module Prompts laid out for prompt caching (issue 25): for the same agent, two calls of a
 * prompt differ only after what stays the same (the rules, who the agent is, the places it
 * knows), so a provider's cache reuses that prefix.
 */
import assert from "node:assert/strict";
import {
  buildActionsPrompt,
  buildDayPlanPrompt,
  buildDialogueLinePrompt,
  buildItemPlanPrompt,
  buildReactionPrompt,
  type ChatMessage,
  type DayPlanInput,
  type DialogueLineInput,
  type ItemPlanInput,
  type ReactionInput,
} from "../../../../src/domain/prompts/mod.ts";
import type { ActionsInput } from "../../../../src/domain/prompts/actions.ts";

const summary = "Klaus Mueller is a student.\nKlaus studies sociology at Oak Hill College.";
const locations = [
  { path: "Oak Hill College:library:desk", state: "" },
  { path: "Oak Hill College:library:shelf", state: "" },
  { path: "Hobbs Cafe:cafe:counter", state: "" },
  { path: "Hobbs Cafe:cafe:coffee machine", state: "off" },
];

/** The prompt as one text, the way a provider sees it. */
function text(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `${m.role}\n${m.content}\n`).join("");
}

/**
 * Asserts that two prompts share the system message and a prefix reaching past every stable
 * `marker` (the end of a data block that is the same on both calls).
 */
function assertStablePrefix(
  a: readonly ChatMessage[],
  b: readonly ChatMessage[],
  markers: readonly string[],
): void {
  assert.equal(a[0].content, b[0].content, "the system message is the same on every call");
  const [ta, tb] = [text(a), text(b)];
  let shared = 0;
  while (shared < ta.length && ta[shared] === tb[shared]) shared++;
  for (const marker of markers) {
    const end = tb.indexOf(marker);
    assert.ok(end > 0, `no ${marker}`);
    assert.ok(end + marker.length <= shared, `${marker} lies inside the shared prefix`);
  }
  assert.ok(shared < tb.length, "the prompts do differ, at the end");
}

Deno.test("the item-plan prompt: rules, profile and places first, the item and the time last", () => {
  const input: ItemPlanInput = {
    agentName: "Klaus Mueller",
    summary,
    date: "2023-02-13",
    item: { start: "09:00", end: "12:00", description: "study", place: "Oak Hill College" },
    before: "have breakfast",
    after: "have lunch",
    locations,
    currentLocation: "Oak Hill College:library:desk",
    currentArea: "Oak Hill College",
  };
  const later: ItemPlanInput = {
    ...input,
    date: "2023-02-14",
    item: { start: "13:00", end: "16:00", description: "work at the cafe", place: "Hobbs Cafe" },
    locations: locations.map((l, i) => i === 3 ? { ...l, state: "brewing" } : l),
    currentArea: "Hobbs Cafe",
  };
  assertStablePrefix(
    buildItemPlanPrompt(input).messages,
    buildItemPlanPrompt(later).messages,
    ["PROFILE_DATA>>>", "LOCATIONS_DATA>>>"],
  );
});

Deno.test("the actions prompt: rules, profile and locations first, the stretch last", () => {
  const input: ActionsInput = {
    agentName: "Klaus Mueller",
    summary,
    date: "2023-02-13",
    item: "study",
    chunk: { start: "09:00", end: "10:00", description: "read" },
    locations,
    currentLocation: "Oak Hill College:library:desk",
    currentArea: "Oak Hill College",
    plannedArea: "Oak Hill College",
  };
  const later: ActionsInput = {
    ...input,
    chunk: { start: "15:00", end: "16:00", description: "serve coffee" },
    item: "work at the cafe",
    currentArea: "Hobbs Cafe",
    plannedArea: "Hobbs Cafe",
  };
  assertStablePrefix(
    buildActionsPrompt(input).messages,
    buildActionsPrompt(later).messages,
    ["PROFILE_DATA>>>", "LOCATIONS_DATA>>>"],
  );
});

Deno.test("the day-plan prompt: profile and places before the date and the day before", () => {
  const input: DayPlanInput = {
    agentName: "Klaus Mueller",
    summary,
    date: "2023-02-13",
    weekday: "Monday",
    previousDay: ["went to the library"],
    comingUp: [],
    places: [{ name: "Oak Hill College", role: "workplace", contents: "library" }],
    minItems: 5,
    maxItems: 8,
    remainder: null,
  };
  const next = { ...input, date: "2023-02-14", weekday: "Tuesday", previousDay: ["read"] };
  assertStablePrefix(
    buildDayPlanPrompt(input).messages,
    buildDayPlanPrompt(next).messages,
    ["PROFILE_DATA>>>", "PLACES_DATA>>>"],
  );
});

Deno.test("the dialogue prompt: the speaker, the listener and the reason first, the line's moment last", () => {
  const input: DialogueLineInput = {
    speakerName: "Klaus Mueller",
    listenerName: "Maria Lopez",
    summary,
    now: "2023-02-13T13:00:00",
    memories: ["Maria likes physics"],
    topic: "the paper",
    history: [{ speaker: "Maria Lopez", text: "Hi Klaus!" }],
    turn: 2,
    maxTurns: 8,
  };
  const next: DialogueLineInput = {
    ...input,
    now: "2023-02-13T13:01:00",
    memories: ["Maria is writing a paper too"],
    history: [...input.history, { speaker: "Klaus Mueller", text: "Hi!" }, {
      speaker: "Maria Lopez",
      text: "How is the paper?",
    }],
    turn: 3,
  };
  assertStablePrefix(
    buildDialogueLinePrompt(input).messages,
    buildDialogueLinePrompt(next).messages,
    ["SPEAKER_DATA>>>", "LISTENER_DATA>>>", "INTENT_DATA>>>"],
  );
});

Deno.test("the reaction prompt: the character first, the moment after it", () => {
  const input: ReactionInput = {
    agentName: "John Lin",
    summary: "John runs the pharmacy.",
    now: "2023-02-13T16:56:00",
    currentAction: "reading the newspaper",
    observations: ["Eddy Lin is taking a walk"],
    observed: null,
    relationship: [],
    context: [],
  };
  const later = { ...input, now: "2023-02-13T18:00:00", currentAction: "cooking" };
  assertStablePrefix(
    buildReactionPrompt(input).messages,
    buildReactionPrompt(later).messages,
    ["CHARACTER_DATA>>>"],
  );
});
