/**
 * @module TrueSkill ratings of conditions from rankings, as Generative Agents §6.2 turns its
 * evaluators' rankings into μ and σ per condition. The rating is `ts-trueskill`, a port of the
 * Python `trueskill` package (Herbrich et al.'s factor graph, μ₀ = 25, σ₀ = 25/3), so μ and σ
 * are on the scale of the paper's Figure 8.
 */
import { rate, Rating } from "ts-trueskill";
import type { SkillRater, SkillRating } from "../src/ports/mod.ts";

/**
 * Rates `conditions` from rankings (each lists conditions best first; one ranking is one
 * free-for-all match, every condition a one-player team), in the order given. Conditions a
 * ranking leaves out sit that match out. Ratings are rounded to two decimals.
 * @throws {RangeError} when a ranking names a condition not in `conditions`.
 */
export const trueSkillRatings: SkillRater = (conditions, rankings) => {
  const ratings = new Map(conditions.map((c) => [c, new Rating()]));
  for (const ranking of rankings) {
    if (ranking.length < 2) continue;
    for (const c of ranking) {
      if (!ratings.has(c)) {
        throw new RangeError(`Cannot rate "${c}": not one of ${conditions.join(", ")}`);
      }
    }
    const teams = ranking.map((c) => [ratings.get(c)!]);
    const rated = rate(teams, ranking.map((_, rank) => rank));
    ranking.forEach((c, i) => ratings.set(c, rated[i][0]));
  }
  const round = (v: number) => Math.round(v * 100) / 100;
  return Object.fromEntries<SkillRating>(
    conditions.map((
      c,
    ) => [c, { mu: round(ratings.get(c)!.mu), sigma: round(ratings.get(c)!.sigma) }]),
  );
};
