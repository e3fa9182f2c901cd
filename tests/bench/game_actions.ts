/**
 * Prints the offline model's game-action score (issue 22; BENCHMARKS.md "Game hooks"):
 * `deno run -A tests/bench/game_actions.ts`.
 */
import { scoreGameActions, shopTurn } from "../lib/offline/_game_action_score.ts";
import {
  HELD_OUT_ACT,
  HELD_OUT_QUIET,
  REGISTERED,
  SHOULD_ACT,
  SHOULD_NOT_ACT,
} from "../lib/offline/_game_action_cases.ts";
import { buildRespondPrompt, estimatePromptTokens } from "../../src/domain/mod.ts";

const pct = (n: number, of: number) => `${(100 * n / of).toFixed(1)}%`;
for (
  const [name, set] of [
    ["written with the responder", { act: SHOULD_ACT, quiet: SHOULD_NOT_ACT }],
    ["held out", { act: HELD_OUT_ACT, quiet: HELD_OUT_QUIET }],
  ] as const
) {
  const { acted, quiet } = scoreGameActions(set);
  // deno-lint-ignore no-console
  console.log(
    `${name}: requests ${acted.right}/${acted.of} right with valid arguments (${
      pct(acted.right, acted.of)
    }); others ${quiet.right}/${quiet.of} without an action (${pct(quiet.right, quiet.of)})${
      [...acted.misses, ...quiet.misses].length
        ? `; wrong: ${[...acted.misses, ...quiet.misses].join(" | ")}`
        : ""
    }`,
  );
}

// What offering the actions costs: the reply prompt's estimated tokens with none, the two a shop
// needs, and all eight of the benchmark's, for the same turn.
const turn = shopTurn("Please give me the lantern.");
const sizes = [0, 2, 8].map((n) => {
  const offered = REGISTERED.slice(0, n);
  const prompt = buildRespondPrompt(n === 0 ? turn : { ...turn, gameActions: offered });
  return `${n} actions: ${estimatePromptTokens(prompt)} tokens`;
});
// deno-lint-ignore no-console
console.log(`reply prompt (estimated): ${sizes.join("; ")}`);
