/** @module Port: rates conditions from rankings (TrueSkill in lib/trueskill.ts), as Generative Agents §6.2 rates its ablations. */

/** A condition's rating: the mean skill and its uncertainty. */
export interface SkillRating {
  mu: number;
  sigma: number;
}

/**
 * Rates `conditions` from rankings (each lists conditions best first, one match each, in the
 * order given).
 */
export type SkillRater = (
  conditions: readonly string[],
  rankings: readonly (readonly string[])[],
) => Record<string, SkillRating>;
