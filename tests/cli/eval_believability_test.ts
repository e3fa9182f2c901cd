import assert from "node:assert/strict";
import { runCli } from "../_helpers/cli_run.ts";

Deno.test("eval believability loads a world export, interviews under the four conditions and prints Figure 8's table and chart", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = await runCli("eval.ts", [
      "believability",
      "--world",
      "examples/smallville.ndjson",
      "--agents",
      "lucia",
      "--svg",
      `${dir}/fig8.svg`,
      "--json",
      `${dir}/b.json`,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /Loaded world "smallville-seed-1": 25 agents/);
    assert.match(run.stderr, /believability: 1\/1 agents \(Lucia Ferreira\)/);
    const rows = run.stdout.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| ---"));
    assert.equal(rows[0], "| Condition | μ | σ | Mean rank |");
    assert.deepEqual(
      rows.slice(1).map((r) => r.match(/`(\w+)`/)![1]),
      ["full", "no_reflection", "no_reflection_no_planning", "no_memory"],
    );
    assert.match(run.stdout, /1 agents, 25 ranked questions/);
    assert.match(run.stdout, /Judge: offline rule-based judge/);
    const result = JSON.parse(await Deno.readTextFile(`${dir}/b.json`));
    assert.equal(result.rankings, 25);
    assert.equal(result.usage.judge.calls, 25, "one ranking call per question");
    assert.ok(result.usage.agent.calls >= 100, "25 questions under four conditions");
    const svg = await Deno.readTextFile(`${dir}/fig8.svg`);
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.equal(svg.match(/<rect /g)?.length, 4, "one bar per condition");
    assert.equal(svg.match(/stroke-width="1.5"/g)?.length, 4, "one error bar per condition");
    assert.match(svg, new RegExp(`${result.ratings.full.mu.toFixed(2)}</text>`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval believability needs --world", async () => {
  const run = await runCli("eval.ts", ["believability"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--world FILE is required/);
});
