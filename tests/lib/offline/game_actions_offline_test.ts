/**
 * The offline model picks game actions sensibly (issue 22): on 24 requests that map to a
 * registered action it answers the right one with valid arguments at least 90% of the time, and
 * on 22 messages that map to none (questions, statements, refusals, requests no action does) it
 * takes none; the same bar on cases written after it was tuned. Numbers in BENCHMARKS.md "Game
 * hooks (issue 22)".
 */
import assert from "node:assert/strict";
import { scoreGameActions } from "./_game_action_score.ts";
import { HELD_OUT_ACT, HELD_OUT_QUIET, SHOULD_ACT, SHOULD_NOT_ACT } from "./_game_action_cases.ts";

Deno.test("offline model: the right action with valid arguments on ≥ 90% of requests, none on the rest", () => {
  assert.ok(SHOULD_ACT.length >= 20 && SHOULD_NOT_ACT.length >= 20);
  const { acted, quiet } = scoreGameActions({ act: SHOULD_ACT, quiet: SHOULD_NOT_ACT });
  assert.ok(
    acted.right / acted.of >= 0.9,
    `${acted.right}/${acted.of}: ${acted.misses.join(" | ")}`,
  );
  assert.equal(quiet.right, quiet.of, `took an action on: ${quiet.misses.join(" | ")}`);
});

Deno.test("offline model: ≥ 90% on the cases written after it was tuned", () => {
  const { acted, quiet } = scoreGameActions({ act: HELD_OUT_ACT, quiet: HELD_OUT_QUIET });
  assert.ok(
    acted.right / acted.of >= 0.9,
    `${acted.right}/${acted.of}: ${acted.misses.join(" | ")}`,
  );
  assert.ok(quiet.right / quiet.of >= 0.9, `took an action on: ${quiet.misses.join(" | ")}`);
});
