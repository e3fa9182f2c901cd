import assert from "node:assert/strict";
import {
  type RunRecord,
  SimulationSummary,
  summarizeRun,
} from "../../../../src/eval/simulation_summary.ts";
import type { GameTime } from "../../../../src/domain/time/game_time.ts";

const t = (s: string) => s as GameTime;

function run(overrides: Partial<RunRecord> = {}): RunRecord {
  const people = [
    { id: "lucia", name: "Lucia Ferreira" },
    { id: "walter", name: "Walter Bergstrom" },
    { id: "nadia", name: "Nadia Haddad" },
    { id: "felix", name: "Felix Brandt" },
  ];
  return {
    template: "smallville",
    model: "offline",
    people,
    startTime: t("2023-02-13T07:00:00"),
    endTime: t("2023-02-13T19:00:00"),
    minutesPerTick: 10,
    ticks: 72,
    concurrency: 4,
    seed: 7,
    events: 900,
    stepErrors: 0,
    stepErrorExamples: [],
    wallSeconds: 12.345,
    setup: {
      total: { calls: 4, promptTokens: 400, completionTokens: 40 },
      byOperation: { importance: { calls: 4, promptTokens: 400, completionTokens: 40 } },
    },
    final: {
      total: { calls: 104, promptTokens: 80_400, completionTokens: 20_040 },
      byOperation: {
        importance: { calls: 24, promptTokens: 10_400, completionTokens: 1_040 },
        dialogue_line: { calls: 60, promptTokens: 50_000, completionTokens: 14_000 },
        "plan.day": { calls: 20, promptTokens: 20_000, completionTokens: 5_000 },
        agent_summary: { calls: 0, promptTokens: 0, completionTokens: 0 },
      },
    },
    facts: {
      party: { originator: "lucia", allOf: [/party/i], anyOf: [/valentine/i] },
      candidacy: { originator: "walter", allOf: [/mayor/i], anyOf: [/running/i] },
    },
    party: {
      host: "lucia",
      area: "Marigold Cafe",
      start: t("2023-02-14T17:00:00"),
      end: t("2023-02-14T19:00:00"),
    },
    memoriesBefore: new Map([
      ["lucia", ["Lucia Ferreira plans a Valentine's party", "Lucia knows Nadia Haddad"]],
      ["walter", ["Walter Bergstrom is running for mayor"]],
      ["nadia", ["Nadia Haddad is a friend of Lucia Ferreira"]],
      ["felix", ["Felix Brandt studies"]],
    ]),
    memoriesAfter: new Map([
      ["lucia", ["Lucia Ferreira plans a Valentine's party", "Lucia knows Nadia Haddad"]],
      ["walter", ["Walter Bergstrom is running for mayor", "Walter met Felix Brandt"]],
      ["nadia", ['Lucia Ferreira said to Nadia Haddad: "come to my Valentine\'s party"']],
      ["felix", ['Walter Bergstrom said to Felix Brandt: "I am running for mayor"']],
    ]),
    memoriesAfterWithoutSightings: new Map([
      ["lucia", ["Lucia Ferreira plans a Valentine's party"]],
      ["walter", ["Walter Bergstrom is running for mayor", "Walter met Felix Brandt"]],
      ["nadia", []],
      ["felix", ['Walter Bergstrom said to Felix Brandt: "I am running for mayor"']],
    ]),
    samples: [],
    ...overrides,
  };
}

Deno.test("summarizeRun() reports cost per agent-day without the setup calls", () => {
  const s = summarizeRun(run());
  SimulationSummary.parse(s);
  assert.equal(s.agents, 4);
  assert.equal(s.gameHours, 12);
  assert.deepEqual(
    [s.modelCalls, s.promptTokens, s.completionTokens],
    [100, 80_000, 20_000],
  );
  assert.equal(s.callsPerAgentDay, 50, "100 calls / (4 agents × 0.5 day)");
  assert.equal(s.tokensPerAgentDay, 50_000);
  assert.deepEqual(s.budget, { callsPerAgentDay: 60, tokensPerAgentDay: 60_000, met: true });
  assert.equal(s.wallSeconds, 12.3);
  assert.deepEqual(Object.keys(s.byOperation), ["dialogue_line", "importance", "plan.day"]);
  assert.deepEqual(s.byOperation.importance, {
    calls: 20,
    promptTokens: 10_000,
    completionTokens: 1_000,
    cachedPromptTokens: 0,
  });
  assert.equal(
    summarizeRun(run({ ticks: 1, endTime: t("2023-02-13T08:00:00") })).budget.met,
    false,
  );
});

Deno.test("summarizeRun() reports diffusion, density and (un)measured attendance", () => {
  const s = summarizeRun(run());
  assert.deepEqual(s.diffusion.party, {
    knows: ["Lucia Ferreira", "Nadia Haddad"],
    count: 2,
    share: 0.5,
    shareBefore: 0.25,
  });
  assert.deepEqual(s.diffusion.candidacy.knows, ["Walter Bergstrom", "Felix Brandt"]);
  assert.deepEqual(s.networkDensity, { before: 0.167, after: 0.333, afterWithoutSightings: 0.167 });
  assert.equal(s.partyAttendance, null, "the run ended before the party");

  const long = summarizeRun(run({
    endTime: t("2023-02-15T07:00:00"),
    samples: [
      { at: t("2023-02-14T17:10:00"), agentId: "lucia", location: "Marigold Cafe:cafe" },
      { at: t("2023-02-14T17:10:00"), agentId: "nadia", location: "Marigold Cafe:cafe" },
      { at: t("2023-02-14T17:10:00"), agentId: "felix", location: "Marigold Cafe:cafe" },
    ],
  }));
  assert.deepEqual(long.partyAttendance, {
    attendees: ["Nadia Haddad", "Felix Brandt"],
    count: 2,
    informed: 1,
    hostPresent: true,
  });
});
