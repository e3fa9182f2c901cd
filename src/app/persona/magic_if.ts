/**
 * @module The Magic-If pipeline shared by replies and interviews: anchor, select, recall, bound,
 * enact, each stage reported (Wang et al. 2026 §3.3).
 */
import {
  addUsage,
  type AgentScope,
  boundaryHints,
  cardNotesOf,
  cueScore,
  emptyUsage,
  facetView,
  formatReply,
  type GameTime,
  type MemoryId,
  type MemoryKind,
  type MemoryRecord,
  promptWithinBudget,
  resolveWeights,
  type RespondPromptInput,
  SimulacraError,
  sourceOf,
  type Usage,
  type WorldId,
} from "../../domain/mod.ts";
import { agentSummary, identityLine, readPlan } from "../cognition/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { rankMemories } from "../memory/mod.ts";
import { completeReply, type DialogueCues, selectFacets } from "../../mind/mod.ts";
import type {
  Ablation,
  AnchorStage,
  Enacted,
  RecalledMemory,
  ReplyContext,
  Turn,
  TurnRequest,
} from "./_magic_if_turn.ts";
import { socialOfTurn } from "./_social_turn.ts";

export type { Ablation, AnchorStage, Enacted, RecalledMemory, ReplyContext, Turn, TurnRequest };

const KINDS: Record<Ablation, readonly MemoryKind[] | undefined> = {
  full: undefined,
  no_memory: [],
  no_reflection_no_plan: ["seed", "observation", "chat"],
  no_reflection: ["seed", "observation", "chat", "plan"],
};

/** Earlier turns the facet and memory cues look at. */
export const CUE_TURNS = 4;
/** Lorebook entries a key can pull into one reply. */
const LORE_PER_REPLY = 3;

/**
 * The agent's stored plan for the day of `at` as lines, or none (no plan yet, or outside the
 * calendar); no model call.
 */
async function todaysPlan(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  at: GameTime,
): Promise<string[]> {
  try {
    const plan = await readPlan(deps, scope, at.slice(0, 10));
    return plan.items.map((i) =>
      `${i.start.slice(11, 16)}–${i.end.slice(11, 16)} ${i.description}${
        i.location ? ` (${i.location})` : ""
      }`
    );
  } catch (err) {
    if (
      err instanceof SimulacraError && (err.code === "not_found" || err.code === "unprocessable")
    ) {
      return [];
    }
    throw err;
  }
}

/**
 * Anchor: the cached agent summary (paper App. A), the persona's core traits, what the agent
 * is doing and today's plan when one is stored (never made here: a reply does not plan a day).
 * With `no_memory` the summary is replaced by identity and description, since the summary is
 * made from memories; plans are left out with `no_memory` and `no_reflection_no_plan`.
 * @throws `model_*` when the summary must be remade and the model fails.
 */
export async function anchorStage(
  deps: Pick<Deps, "storage" | "model" | "embedder">,
  base: Omit<ReplyContext, "anchor">,
): Promise<{ anchor: AnchorStage; usage: Usage }> {
  const { world, agent, record, at, ablation } = base;
  const coreTraits = record?.persona.core_traits.map((t) => t.trait) ?? agent.traits;
  const plans = ablation === "full" || ablation === "no_reflection";
  const doing = plans ? agent.action : null;
  const plan = plans
    ? await todaysPlan(deps, { worldId: world.id as WorldId, agentId: agent.id }, at)
    : [];
  if (ablation === "no_memory") {
    const summary = `${identityLine(agent)}\n${agent.description}`;
    return {
      anchor: { summary, source: "description", coreTraits, doing, plan },
      usage: emptyUsage(),
    };
  }
  const made = await agentSummary(deps, { world, agent, at });
  return {
    anchor: { summary: made.summary.text, source: "summary", coreTraits, doing, plan },
    usage: made.usage,
  };
}

/** The cue texts of a turn: the last few earlier turns and the message. */
export function cuesOf(history: readonly Turn[], message: string): DialogueCues {
  return {
    history: history.slice(-CUE_TURNS).map((t) => `${t.speaker}: ${t.text}`).join("\n"),
    message,
  };
}

function nonZero(v: Float32Array | null): v is Float32Array {
  if (v === null) return false;
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return true;
  return false;
}

/**
 * Recall: the agent's best memories for the dialogue (one ranking with the dialogue vector),
 * plus lorebook knowledge whose keys the dialogue's cues say, first. Kinds follow the ablation.
 */
export async function recallStage(
  deps: Pick<Deps, "storage" | "embedder">,
  ctx: ReplyContext,
  turn: TurnRequest,
): Promise<RecalledMemory[]> {
  const kinds = KINDS[ctx.ablation];
  if (kinds?.length === 0 || turn.options.memories === 0) return [];
  const cues = cuesOf(turn.history, turn.message);
  const scope: AgentScope = { worldId: ctx.world.id as WorldId, agentId: ctx.agent.id };
  const text = `${cues.history}\n${cues.message}`;
  const loreIds = (ctx.record?.lore ?? [])
    .filter((l) => cueScore(text, l.keys).matched.length > 0)
    .slice(0, LORE_PER_REPLY)
    .map((l) => l.memoryId);
  const lore = (await deps.storage.memories.getMany(scope, loreIds))
    .filter((m): m is MemoryRecord => m !== null && (!kinds || kinds.includes(m.kind)));
  const ranked = nonZero(turn.vector)
    ? (await rankMemories(deps, scope, {
      query: turn.vector,
      at: ctx.at,
      weights: resolveWeights(ctx.world.settings.retrievalWeights),
      decay: ctx.world.settings.recencyDecay,
      k: turn.options.memories,
      kinds,
    })).ranked
    : [];
  const loreSet = new Set<string>(lore.map((m) => m.id));
  const out: RecalledMemory[] = [
    ...lore.map((memory) => ({ memory, score: null, via: "lore" as const })),
    ...ranked.filter((s) => !loreSet.has(s.memory.id)).map((s) => ({
      memory: s.memory,
      score: Math.round(s.score * 10_000) / 10_000,
      via: "retrieval" as const,
    })),
  ].slice(0, turn.options.memories + lore.length);
  if (turn.touch && out.length > 0) {
    await deps.storage.memories.touch(scope, out.map((r) => r.memory.id as MemoryId), ctx.at);
  }
  return out;
}

/** A turn's prompt, ready to send, and what went into it. */
export interface PreparedTurn {
  prompt: ReturnType<typeof promptWithinBudget>["prompt"];
  budget: ReturnType<typeof promptWithinBudget>["budget"];
  selection: ReturnType<typeof selectFacets>;
  memories: RecalledMemory[];
  hints: string[];
  /** Lore entries the prompt carries (`used.lore`). */
  lore: Enacted["lore"];
}

/**
 * Select, recall and bound one turn: the respond prompt that {@linkcode enactTurn} sends (an
 * evaluation varies its input and sends the variants). No model call; nothing is stored.
 * @throws `store_unavailable`, `unprocessable` (budget).
 */
export async function prepareTurn(
  deps: Pick<Deps, "storage" | "embedder">,
  ctx: ReplyContext,
  turn: TurnRequest,
): Promise<PreparedTurn> {
  const persona = ctx.record?.persona ?? null;
  const cues = cuesOf(turn.history, turn.message);
  const selection = selectFacets(persona, { cues, relevance: turn.relevance }, {
    top: turn.options.facets,
  });
  const memories = await recallStage(deps, ctx, turn);
  const hints = boundaryHints(turn.message, ctx.at);
  const social = socialOfTurn(ctx.social, {
    agent: ctx.agent,
    speaker: turn.speaker?.name ?? null,
    text: `${cues.history}\n${cues.message}`,
    at: ctx.at,
  });
  const { prompt, budget } = promptWithinBudget({
    agentName: ctx.agent.name,
    mode: turn.mode,
    speaker: turn.speaker,
    now: ctx.at,
    anchor: {
      summary: ctx.anchor.summary,
      home: ctx.agent.home,
      workplace: ctx.agent.workplace,
      nickname: persona?.nickname ?? "",
      globalSummary: persona?.global_summary ?? "",
      coreTraits: persona?.core_traits ?? ctx.agent.traits.map((trait) => ({ trait, desc: "" })),
      relationships: persona?.relationships ?? [],
    },
    facets: selection.selected.map(facetView),
    memories: memories.map((r) => ({
      text: r.memory.description,
      when: r.memory.createdAt,
      source: sourceOf(r.memory.provenance),
    })),
    plan: [
      ...(ctx.anchor.doing === null ? [] : [`Right now: ${ctx.anchor.doing}`]),
      ...(ctx.anchor.plan.length === 0 ? [] : [`Today's plan: ${ctx.anchor.plan.join("; ")}`]),
    ],
    cardNotes: cardNotesOf(ctx.record),
    history: turn.history,
    message: turn.message,
    boundaryHints: hints,
    disclosure: ctx.world.settings.disclosure ?? false,
    ...social.fields,
    ...(turn.gameActions?.length ? { gameActions: [...turn.gameActions] } : {}),
  }, turn.options.tokenBudget);
  return { prompt, budget, selection, memories, hints, lore: social.used };
}

/**
 * Select, recall, bound and enact one turn (the anchor is computed once per context): one
 * main-model call. Nothing is stored here.
 * @throws `model_*`, `store_unavailable`, `unprocessable` (budget).
 */
export async function enactTurn(
  deps: Pick<Deps, "storage" | "model" | "embedder">,
  ctx: ReplyContext,
  turn: TurnRequest,
): Promise<Enacted> {
  const { prompt, budget, selection, memories, hints, lore } = await prepareTurn(deps, ctx, turn);
  const completion = await completeReply(deps, prompt, {
    attribution: {
      worldId: ctx.world.id,
      agentId: ctx.agent.id,
      operation: turn.mode === "interview" ? "interview" : "respond",
    },
    agentName: ctx.agent.name,
    onWords: turn.onWords,
  });
  const sent = (prompt.input as RespondPromptInput).facets.length;
  return {
    value: completion.value,
    reply: formatReply(ctx.agent.name, completion.value),
    facets: selection.scores.slice(0, sent),
    ranking: selection.ranking,
    memories: memories.slice(0, (prompt.input as RespondPromptInput).memories.length),
    hints,
    budget,
    lore,
    usage: addUsage(completion.usage),
  };
}
