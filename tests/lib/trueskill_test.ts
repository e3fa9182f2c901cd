import assert from "node:assert/strict";
import { trueSkillRatings } from "../../lib/trueskill.ts";

const CONDITIONS = ["full", "no_reflection", "no_reflection_no_planning", "no_memory"];

Deno.test("one win moves both ratings by TrueSkill's own amounts (as Python's trueskill: 29.40 ± 7.17 vs 20.60 ± 7.17)", () => {
  const r = trueSkillRatings(["a", "b"], [["a", "b"]]);
  assert.deepEqual(r, { a: { mu: 29.4, sigma: 7.17 }, b: { mu: 20.6, sigma: 7.17 } });
});

Deno.test("a ranking that always puts the conditions in one order rates them in that order, with shrinking σ", () => {
  const rankings = Array.from({ length: 100 }, () => CONDITIONS);
  const r = trueSkillRatings(CONDITIONS, rankings);
  const mus = CONDITIONS.map((c) => r[c].mu);
  assert.deepEqual([...mus].sort((x, y) => y - x), mus, JSON.stringify(r));
  assert.ok(mus[0] - mus[3] > 10, "far apart after 100 unanimous rankings");
  for (const c of CONDITIONS) assert.ok(r[c].sigma < 2, `${c} σ ${r[c].sigma}`);
});

Deno.test("a mostly-consistent ranking with noise keeps the known order; a toss-up stays a toss-up", () => {
  // full wins 3 of 4 questions against no_reflection, which always beats the rest.
  const rankings = Array.from(
    { length: 80 },
    (_, i) =>
      i % 4 === 3
        ? ["no_reflection", "full", "no_reflection_no_planning", "no_memory"]
        : CONDITIONS,
  );
  const r = trueSkillRatings(CONDITIONS, rankings);
  assert.ok(r.full.mu > r.no_reflection.mu);
  assert.ok(r.no_reflection.mu > r.no_reflection_no_planning.mu);
  assert.ok(r.no_reflection_no_planning.mu > r.no_memory.mu);
  const even = trueSkillRatings(
    ["a", "b"],
    Array.from({ length: 40 }, (_, i) => (i % 2 ? ["a", "b"] : ["b", "a"])),
  );
  assert.ok(Math.abs(even.a.mu - even.b.mu) < 1.5, JSON.stringify(even));
  assert.throws(() => trueSkillRatings(["a"], [["a", "z"]]), /Cannot rate "z"/);
});
