import assert from "node:assert/strict";
import { MREVAL_METRICS } from "../../src/domain/mod.ts";
import { bundledMrbench } from "../../src/eval/mod.ts";
import { runCli } from "../_helpers/cli_run.ts";

function evalTask(...args: string[]) {
  return runCli("eval.ts", args);
}

Deno.test("the bundled suite: ten characters from the town and invented, twenty probes per ability with their references", () => {
  const suite = bundledMrbench();
  assert.ok(suite.personas.length >= 10);
  assert.ok(suite.personas.some((p) => p.source === "example town"));
  assert.ok(suite.personas.some((p) => p.source === "invented"));
  for (const ability of ["anchoring", "selecting", "bounding", "enacting"]) {
    assert.ok(suite.probes.filter((p) => p.ability === ability).length >= 20, ability);
  }
  assert.ok(suite.probes.filter((p) => p.ability === "anchoring").every((p) => p.gold));
  assert.ok(suite.probes.filter((p) => p.ability === "bounding").every((p) => p.forbidden));
  for (const p of suite.probes.filter((p) => p.ability === "selecting")) {
    const persona = suite.personas.find((c) => c.id === p.persona)!.persona;
    assert.ok(persona.scene_facets.some((f) => f.title === p.facet), `${p.persona}: ${p.facet}`);
  }
});

Deno.test("eval mrbench runs the whole suite offline and prints the paper's table, labelled with the offline judge", async () => {
  const json = await Deno.makeTempFile({ suffix: ".json" });
  try {
    const run = await evalTask("mrbench", "--json", json);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /mrbench mrprompt: 80\/80 probes/);
    const lines = run.stdout.trim().split("\n");
    assert.equal(lines[0], `| Condition | ${MREVAL_METRICS.join(" | ")} | Avg. |`);
    assert.deepEqual(
      lines.slice(2, 7).map((l) => l.split(" | ")[0]),
      ["| base", "| card", "| +protocol", "| +schema", "| mrprompt"],
    );
    assert.match(run.stdout, /Judge: offline rule-based judge/);
    assert.match(run.stdout, /Calibration: the paper's Table 15/);
    const result = JSON.parse(await Deno.readTextFile(json));
    assert.equal(result.characters, 10);
    assert.equal(result.probes, 80);
    assert.equal(result.judge.offline, true);
    for (const row of result.rows) {
      assert.deepEqual(Object.keys(row.metrics), [...MREVAL_METRICS]);
      assert.ok(row.usage.judge.calls > 0 && row.usage.agent.calls >= 80);
    }
    const avg = (label: string) =>
      result.rows.find((r: { label: string }) => r.label === label).average.calibrated;
    assert.ok(avg("mrprompt") > avg("base"), "the full method beats the baseline even offline");
    assert.equal(result.judgePerItem.calls, 1);
  } finally {
    await Deno.remove(json);
  }
});

Deno.test("eval mrbench takes a subset and refuses unknown conditions; eval calibrate fits per metric", async () => {
  const small = await evalTask(
    "mrbench",
    "--characters",
    "lucia,mira",
    "--conditions",
    "base",
    "--ablations",
    "none",
  );
  assert.equal(small.code, 0, small.stderr);
  assert.match(small.stdout, /2 characters, 16 probes/);
  assert.equal(small.stdout.split("\n").filter((l) => l.startsWith("| base")).length, 1);
  const bad = await evalTask("mrbench", "--conditions", "fancy");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown "fancy"/);

  const ratings = await Deno.makeTempFile({ suffix: ".csv" });
  try {
    await Deno.writeTextFile(
      ratings,
      "metric,judge,human\nMA-SI,6,6.339\nMA-SI,8,7.741\nMA-SI,10,9.143\nMB-CR,1,2\nMB-CR,3,3\nMB-CR,5,7\nME-HLE,7,7\n",
    );
    const run = await evalTask("calibrate", ratings);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), {
      "MA-SI": { a: 2.133, b: 0.701 },
      "MB-CR": { a: 0.25, b: 1.25 },
    });
    assert.match(run.stderr, /ME-HLE: only one rating/);
  } finally {
    await Deno.remove(ratings);
  }
});
