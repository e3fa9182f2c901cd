/**
 * @module Believability across the paper's ablations: each agent interviewed with the 25
 * questions under every condition, the judge ranking the conditions' answers question by
 * question, TrueSkill turning the rankings into μ and σ per condition (Generative Agents §6,
 * Figure 8).
 */
import { addUsage, type AgentScope, type Usage, type WorldId } from "../domain/mod.ts";
import {
  type Deps,
  type JudgeDeps,
  type JudgeLabel,
  judgeLabel,
  type SkillRater,
  type SkillRating,
} from "../ports/mod.ts";
import { interview, type InterviewResult, judgeAnswers, listAgents } from "../app/mod.ts";

/** The paper's conditions (the human-written one aside), as the interview's ablations name them. */
export const BELIEVABILITY_CONDITIONS = {
  full: "full",
  no_reflection: "no_reflection",
  no_reflection_no_planning: "no_reflection_no_plan",
  no_memory: "no_memory",
} as const;
export type BelievabilityCondition = keyof typeof BELIEVABILITY_CONDITIONS;

/** The result, in Figure 8's shape: one rating per condition. */
export interface BelievabilityResult {
  world: string;
  at: string;
  agents: string[];
  /** Questions ranked (one TrueSkill match each). */
  rankings: number;
  ratings: Record<BelievabilityCondition, SkillRating>;
  /** Mean rank of each condition (1 best), for reading the ratings. */
  meanRank: Record<BelievabilityCondition, number>;
  judge: JudgeLabel;
  model: string;
  usage: { agent: Usage; judge: Usage };
}

/** Options of {@linkcode rankBelievability}. */
export interface BelievabilityOptions {
  /** Interview only these agents (ids); default all. */
  agents?: readonly string[];
  /** Rates the conditions from the rankings (the CLI passes TrueSkill, lib/trueskill.ts). */
  rate: SkillRater;
  onProgress?: (progress: { agent: string; done: number; total: number }) => void;
}

/** A 32-bit FNV-1a hash, for a shuffle that is the same every run. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * A stable shuffle of the conditions for one question, so the judge never sees them in the
 * same order (position is not a cue).
 */
function shuffled(items: readonly BelievabilityCondition[], key: string): BelievabilityCondition[] {
  return [...items].sort((a, b) => hash(`${key}|${a}`) - hash(`${key}|${b}`));
}

/**
 * Interviews the world's agents under every condition (nothing is stored), has the judge rank
 * each question's answers, and rates the conditions with TrueSkill.
 * @throws `world_not_found`, `model_*`, `store_unavailable`.
 */
export async function rankBelievability(
  deps: Pick<Deps, "storage" | "model" | "embedder"> & JudgeDeps,
  worldId: WorldId,
  options: BelievabilityOptions,
): Promise<BelievabilityResult> {
  const conditions = Object.keys(BELIEVABILITY_CONDITIONS) as BelievabilityCondition[];
  const all = await listAgents(deps, worldId);
  const agents = options.agents ? all.filter((a) => options.agents!.includes(a.id)) : all;
  const agentUsage: Usage[] = [];
  const judgeUsage: Usage[] = [];
  const rankings: BelievabilityCondition[][] = [];
  let at = "";
  for (const [done, agent] of agents.entries()) {
    const scope: AgentScope = { worldId, agentId: agent.id };
    const transcripts = new Map<BelievabilityCondition, InterviewResult>();
    for (const c of conditions) {
      const result = await interview(deps, scope, { ablation: BELIEVABILITY_CONDITIONS[c] });
      transcripts.set(c, result);
      agentUsage.push(result.usage);
      at = result.at;
    }
    const questions = transcripts.get("full")!.transcript;
    const judged = await judgeAnswers(deps, {
      character: agent.name,
      questions: questions.map((q, i) => {
        const order = shuffled(conditions, `${agent.id}|${i}`);
        return {
          question: q.question,
          answers: order.map((c, k) => ({
            id: String.fromCharCode(65 + k),
            condition: c,
            text: transcripts.get(c)!.transcript[i].answer,
          })),
        };
      }),
    }, { worldId, agentId: agent.id, operation: "judge.believability" });
    judgeUsage.push(judged.usage);
    rankings.push(...(judged.rankings as BelievabilityCondition[][]));
    options.onProgress?.({ agent: agent.name, done: done + 1, total: agents.length });
  }
  const ratings = options.rate(conditions, rankings) as Record<
    BelievabilityCondition,
    SkillRating
  >;
  const meanRank = Object.fromEntries(conditions.map((c) => [
    c,
    rankings.length === 0 ? 0 : Math.round(
      (rankings.reduce((s, r) => s + r.indexOf(c) + 1, 0) / rankings.length) * 100,
    ) / 100,
  ])) as Record<BelievabilityCondition, number>;
  return {
    world: worldId,
    at,
    agents: agents.map((a) => a.name),
    rankings: rankings.length,
    ratings,
    meanRank,
    judge: judgeLabel(deps.judge),
    model: deps.model.info.main,
    usage: { agent: addUsage(...agentUsage), judge: addUsage(...judgeUsage) },
  };
}
