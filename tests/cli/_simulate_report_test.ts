import assert from "node:assert/strict";
import { progressLine, summaryText, townsText } from "../../cli/_simulate_report.ts";
import { mergeRuns, type TownsTotals } from "../../cli/_simulate_towns.ts";
import type { SimulationSummary } from "../../src/eval/simulation_summary.ts";
import type { GameTime } from "../../src/domain/time/game_time.ts";

Deno.test("progressLine() shows game time, events, calls and tokens on one line", () => {
  const line = progressLine({
    now: "2023-02-13T16:40:00" as GameTime,
    minutesDone: 580,
    minutesTotal: 1440,
    ticks: 58,
    events: 1234,
    usage: { calls: 567, promptTokens: 1_000_000, completionTokens: 234_000 },
    stepErrors: 0,
  }, 12.4);
  assert.equal(
    line,
    "[########------------] 40% 2023-02-13 16:40 · 9h40 of 24h · 1,234 events · 567 calls · 1.23M tokens · 12s",
  );
  assert.ok(!line.includes("\n"));
});

const summary: SimulationSummary = {
  template: "smallville",
  agents: 25,
  model: "offline",
  startTime: "2023-02-13T07:00:00" as GameTime,
  endTime: "2023-02-14T07:00:00" as GameTime,
  gameHours: 24,
  minutesPerTick: 10,
  ticks: 144,
  concurrency: 8,
  seed: null,
  events: 5000,
  stepErrors: 0,
  stepErrorExamples: [],
  modelCalls: 1000,
  promptTokens: 900_000,
  cachedPromptTokens: 0,
  completionTokens: 100_000,
  wallSeconds: 42.5,
  callsPerAgentDay: 40,
  tokensPerAgentDay: 40_000,
  budget: { callsPerAgentDay: 60, tokensPerAgentDay: 60_000, met: true },
  setup: { calls: 25, promptTokens: 5000, completionTokens: 500 },
  byOperation: { dialogue_line: { calls: 600, promptTokens: 500_000, completionTokens: 60_000 } },
  diffusion: {
    party: { knows: ["Lucia Ferreira", "Nadia Haddad"], count: 2, share: 0.08, shareBefore: 0.04 },
    candidacy: { knows: ["Walter Bergstrom"], count: 1, share: 0.04, shareBefore: 0.04 },
  },
  networkDensity: { before: 0.14, after: 0.5, afterWithoutSightings: 0.3 },
  partyAttendance: null,
};

Deno.test("summaryText() states cost, budget, diffusion, density and attendance", () => {
  const text = summaryText(summary);
  assert.match(text, /25 agents, 24 game hours \(2023-02-13 07:00 → 2023-02-14 07:00\)/);
  assert.match(text, /Per agent-day: 40 calls, 40,000 tokens \(budget ≤ 60 and ≤ 60,000: met\)/);
  assert.match(text, /dialogue_line 600 \(560\.0k\)/);
  assert.match(text, /Valentine's Day party: 4% → 8% \(2 of 25: Lucia Ferreira, Nadia Haddad\)/);
  assert.match(text, /density: 0\.14 → 0\.5 \(0\.3 not counting pairs who only saw each other\)/);
  assert.match(text, /Party attendance: not measured/);
  assert.doesNotMatch(text, /Cached prompt tokens/, "none reported (the offline model)");
  const promptTokens = summary.promptTokens;
  assert.match(
    summaryText({ ...summary, cachedPromptTokens: Math.round(promptTokens / 2) }),
    /Cached prompt tokens: [\d,]+ of [\d,]+ \(50%, a prefix repeated from an earlier call\)/,
  );
  const came = summaryText({
    ...summary,
    partyAttendance: { attendees: ["Nadia Haddad"], count: 1, informed: 1, hostPresent: true },
  });
  assert.match(came, /1 came, 1 of them had heard of it \(Nadia Haddad\); the host was there/);
});

Deno.test("summaryText() explains budget, diffusion, density and sightings in one line each", () => {
  const lines = summaryText(summary).split("\n");
  for (const term of ["Budget", "Diffusion", "Density", "Sightings", "Attendance"]) {
    const explained = lines.filter((l) => l.trimStart().startsWith(`${term}:`));
    assert.equal(explained.length, 1, term);
    assert.ok(explained[0].length <= 120, explained[0]);
  }
  assert.doesNotMatch(summaryText(summary), /Seed/);
  assert.match(summaryText({ ...summary, seed: 7 }), /Seed 7: the same seed replays this run/);
});

Deno.test("townsText() says what failed steps failed on, over every process's towns", () => {
  const failing = (examples: string[]): SimulationSummary => ({
    ...summary,
    stepErrors: examples.length,
    stepErrorExamples: examples,
  });
  const shard = (towns: SimulationSummary[]) =>
    mergeRuns([{ towns, total: { busyRetries: 0 } as TownsTotals }], 1);
  const run = mergeRuns([
    shard([failing(["The tick's deadline passed"]), summary]),
    shard([failing(["The tick's deadline passed", "The agent's lease was lost"])]),
  ], 60);
  assert.equal(run.total.stepErrors, 3);
  assert.deepEqual(run.total.stepErrorExamples, [
    "The tick's deadline passed",
    "The agent's lease was lost",
  ]);
  assert.match(
    townsText(run, [100]),
    /failed: 3 \(e\.g\. The tick's deadline passed \| The agent's lease was lost\)/,
  );
  assert.doesNotMatch(townsText(mergeRuns([shard([summary])], 1), [100]), /e\.g\./);
});
