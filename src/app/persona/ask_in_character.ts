/** @module Questions answered in character in interview mode (Magic-If, nothing stored, no memory marked accessed): the interview battery's and the emergent measures' way of asking. */
import { addUsage, type AgentScope, type Usage, type WorldId } from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { mapBounded } from "../engine/mod.ts";
import { embedDialogue } from "../../mind/mod.ts";
import { anchorStage, type Enacted, enactTurn, type ReplyContext } from "./magic_if.ts";
import { loadSocial } from "./_social_turn.ts";

/** Questions answered at once. */
const CONCURRENCY = 4;

/** Who asks, as the agent sees it. */
const INTERVIEWER = {
  name: "Interviewer",
  description: "someone asking questions to get to know the character",
};

/**
 * Answers each question in interview mode with the ablation's view of the memory stream: the
 * anchor made once, all questions embedded in one call, one completion per question.
 * @throws `model_*`, `store_unavailable`.
 */
export async function askInCharacter(
  deps: Pick<Deps, "storage" | "model" | "embedder">,
  base: Omit<ReplyContext, "anchor">,
  questions: readonly string[],
): Promise<{ answers: Enacted[]; usage: Usage }> {
  const scope: AgentScope = { worldId: base.world.id as WorldId, agentId: base.agent.id };
  const [{ anchor, usage: anchorUsage }, social] = await Promise.all([
    anchorStage(deps, base),
    loadSocial(deps, scope),
  ]);
  const ctx: ReplyContext = { ...base, anchor, social };
  const embedded = await embedDialogue(
    deps,
    { persona: base.record?.persona ?? null, queries: questions },
    { ...scope, operation: "interview.select" },
  );
  const usages: Usage[] = [anchorUsage, embedded.usage];
  const answers = await mapBounded(questions, CONCURRENCY, async (message, i) => {
    const enacted = await enactTurn(deps, ctx, {
      mode: "interview",
      speaker: INTERVIEWER,
      history: [],
      message,
      vector: embedded.queries[i],
      relevance: embedded.relevance[i] ?? [],
      touch: false,
      options: { facets: 2, memories: 8, tokenBudget: 4000 },
    });
    usages.push(enacted.usage);
    return enacted;
  });
  return { answers, usage: addUsage(...usages) };
}
