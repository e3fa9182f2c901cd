import assert from "node:assert/strict";
import { SimulationSummary } from "../../src/eval/simulation_summary.ts";
import { runCli } from "../_helpers/cli_run.ts";

function simulate(...args: string[]) {
  return runCli("simulate.ts", args);
}

Deno.test("simulate --json runs the town for an hour and ends stdout with the summary", async () => {
  const run = await simulate("--template", "smallville", "--hours", "1", "--json");
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /model: offline/, "says which model runs");
  assert.match(run.stderr, /100% 2023-02-13 08:00 · 1h of 1h · [\d,]+ events · [\d,]+ calls/);
  const last = run.stdout.trim().split("\n").at(-1)!;
  const summary = SimulationSummary.parse(JSON.parse(last));
  assert.equal(summary.agents, 25);
  assert.equal(summary.gameHours, 1);
  assert.equal(summary.ticks, 6);
  assert.equal(summary.model, "offline");
  assert.equal(summary.stepErrors, 0);
  assert.ok(summary.modelCalls > 0 && summary.promptTokens > 0);
  assert.ok(summary.wallSeconds > 0);
  assert.equal(summary.diffusion.party.knows[0], "Lucia Ferreira");
  assert.equal(summary.diffusion.candidacy.knows[0], "Walter Bergstrom");
  assert.ok(summary.networkDensity.before > 0);
  assert.equal(summary.partyAttendance, null);
  // The same measures by interview, beside the text matching.
  const byInterview = summary.byInterview!;
  assert.match(byInterview.judge, /offline rule-based judge/);
  assert.equal(byInterview.usage.judge.calls, 25 * (2 + 24), "party, candidacy, each other agent");
  assert.ok(byInterview.diffusion.party.knows.includes("Lucia Ferreira"), "the host knows");
  assert.equal(byInterview.partyAttendance, null, "the run did not reach the party");
  assert.ok(byInterview.networkDensity >= 0 && byInterview.networkDensity <= 1);
  assert.match(run.stderr, /Interviewing the agents/);
});

Deno.test("simulate --no-interview skips the interviews and their calls", async () => {
  const run = await simulate("--hours", "1", "--no-interview", "--json");
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /Interviewing/);
  const summary = SimulationSummary.parse(JSON.parse(run.stdout.trim().split("\n").at(-1)!));
  assert.equal(summary.byInterview, undefined);
});

Deno.test("simulate explains its flags and refuses bad ones with exit code 2", async () => {
  const help = await simulate("--help");
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: deno task simulate --hours N/);
  const bad = await simulate("--hours=-3", "--template", "atlantis");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Cannot simulate with these flags/);
  assert.match(bad.stderr, /--template "atlantis" is not a town/);
  assert.match(bad.stderr, /--hours must be more than 0/);
  assert.equal(bad.stdout, "");
});

Deno.test("simulate stops with exit code 1 on a bad configuration", async () => {
  const out = await runCli("simulate.ts", ["--hours", "1"], { env: { SIMULACRA_MODEL: "llama3" } });
  assert.equal(out.code, 1);
  assert.match(out.stderr, /SIMULACRA_MODEL is set but no model endpoint/);
});

Deno.test({
  name:
    "simulate --hours 24 with the offline model keeps smallville within the budget per agent-day",
  // A shorter run scaled up cannot stand in: costs are front-loaded (6 h scale to 184 calls,
  // 12 h to 128). One agent at a time (about 25 s here).
  fn: async () => {
    const run = await simulate("--hours", "24", "--concurrency", "1", "--json");
    assert.equal(run.code, 0, run.stderr);
    const summary = SimulationSummary.parse(JSON.parse(run.stdout.trim().split("\n").at(-1)!));
    assert.equal(summary.gameHours, 24);
    assert.equal(summary.stepErrors, 0);
    assert.ok(
      summary.callsPerAgentDay <= 60,
      `${summary.callsPerAgentDay} calls per agent-day: ${JSON.stringify(summary.byOperation)}`,
    );
    assert.ok(
      summary.tokensPerAgentDay <= 60_000,
      `${summary.tokensPerAgentDay} tokens per agent-day: ${JSON.stringify(summary.byOperation)}`,
    );
  },
});

Deno.test({
  name:
    "simulate --hours 48 --seed 7 replays at any concurrency, spreads the party and measures who came",
  // Two 48-game-hour runs (about 40 s each here): the second day's party, 17:00–19:00, is in
  // both, and a seed makes them identical but for wall time and the concurrency asked for.
  fn: async () => {
    const runs = await Promise.all(
      [["--concurrency", "1"], []].map((extra) =>
        simulate("--hours", "48", "--seed", "7", "--json", ...extra)
      ),
    );
    const [one, many] = runs.map((run) => {
      assert.equal(run.code, 0, run.stderr);
      return SimulationSummary.parse(JSON.parse(run.stdout.trim().split("\n").at(-1)!));
    });
    assert.equal(one.seed, 7);
    assert.deepEqual(
      { ...many, wallSeconds: 0, concurrency: 0 },
      { ...one, wallSeconds: 0, concurrency: 0 },
    );
    assert.equal(one.stepErrors, 0);
    assert.ok(one.budget.met, `${one.callsPerAgentDay} calls, ${one.tokensPerAgentDay} tokens`);
    // Word of mouth, checked against memory streams: the paper reports 4% → 52% in two days.
    assert.ok(one.diffusion.party.share >= 0.3, JSON.stringify(one.diffusion.party));
    const came = one.partyAttendance!;
    assert.ok(came !== null, "the run reaches Feb 14, 17:00–19:00");
    assert.ok(came.hostPresent, "Lucia is at her own party");
    assert.ok(came.informed >= 1, JSON.stringify(came));
  },
});

Deno.test("simulate --towns 2 runs two towns through the queue: a summary each and totals", async () => {
  const json = await simulate("--towns", "2", "--hours", "0.5", "--seed", "3", "--json");
  assert.equal(json.code, 0, json.stderr);
  assert.match(json.stderr, /Simulating 2 copies of smallville for 0.5 game hours/);
  assert.match(json.stderr, /100% 2023-02-13 07:30 · 0h30 of 0h30 · [\d,]+ events/);
  const run = JSON.parse(json.stdout.trim().split("\n").at(-1)!);
  const towns = run.towns.map((s: unknown) => SimulationSummary.parse(s));
  assert.deepEqual(towns.map((s: SimulationSummary) => [s.agents, s.ticks, s.seed]), [
    [25, 3, 3],
    [25, 3, 4],
  ]);
  assert.equal(run.total.agents, 50);
  assert.equal(run.total.steps, 150);
  assert.equal(run.total.stepErrors, 0);
  assert.equal(run.total.modelCalls, towns[0].modelCalls + towns[1].modelCalls);
  assert.ok(run.peakRssMb > 0);

  const text = await simulate("--towns", "1", "--hours", "0.2");
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /Simulated 1 town \(25 agents\) for 0.2 game hours through Deno KV queues/,
  );
  assert.match(text.stdout, /town 1: 25 agents, 2 ticks, [\d,]+ calls/);
  assert.match(text.stdout, /Agent steps: 50, failed: 0/);
});

Deno.test("simulate --towns 3 --processes 2 splits the towns over two processes and merges them", async () => {
  const run = await simulate("--towns", "3", "--processes", "2", "--hours", "0.2", "--seed", "9");
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /Simulating 3 copies of smallville in 2 processes/);
  assert.match(run.stderr, /\[towns 1-2\] Simulating 2 copies/);
  assert.match(run.stderr, /\[towns 3-3\] Simulating 1 copies/);
  assert.match(run.stdout, /Simulated 3 towns \(75 agents\)/);
  assert.match(run.stdout, /peak RSS [\d,]+ MB over 2 processes \([\d,]+ \+ [\d,]+\)/);
  assert.match(run.stdout, /town 3: 25 agents, 2 ticks/);
  assert.match(run.stdout, /Agent steps: 150, failed: 0/);
});
