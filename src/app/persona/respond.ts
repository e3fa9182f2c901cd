/**
 * @module Respond: one in-character reply by the Magic-If protocol, with visible stages, a
 * server-side session, provenance for what was heard, and the inner voice (Memory-Driven Role-Playing §3.3).
 */
import {
  addUsage,
  type AgentContext,
  type AgentScope,
  checkProposedActions,
  type GameTime,
  SimulacraError,
  type Usage,
} from "../../domain/mod.ts";
import { loadAgent, loadPersonaRecord, withAgentLock } from "../agents/mod.ts";
import { replanFrom } from "../cognition/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { RespondInput, type RespondResult } from "./respond_schema.ts";
import type { NewMemory } from "../memory/mod.ts";
import { storeTurn } from "./_store_turn.ts";
import { getWorld } from "../world/mod.ts";
import { loadGameActions } from "../game_hooks/mod.ts";
import { dialogueText, embedDialogue } from "../../mind/mod.ts";
import { anchorStage, cuesOf, enactTurn, type ReplyContext, type Turn } from "./magic_if.ts";
import { appendSessionTurns, loadSession } from "./reply_session.ts";
import { loadSocial } from "./_social_turn.ts";

/** Re-plans an agent's day from a game time for a reason (planning's `replanFrom`). */
export type Replanner = (
  deps: Deps,
  context: AgentContext,
  change: { from: GameTime; reason: string },
) => Promise<{ usage: Usage }>;

/** Options for {@linkcode respond}. */
export interface RespondOptions {
  /** Re-plans after an inner-voice directive that changes the day. @default replanFrom */
  replan?: Replanner;
  /** The API key the message came with; stored on the memories the turn writes. */
  keyId?: string;
  /**
   * Receives the spoken words as the model writes them. The turn is stored only after the
   * reply is complete; if generation fails, nothing is stored.
   */
  onWords?: (text: string) => void;
}

const STRANGER = "A stranger";

/** The reply line without its `Name: ` prefix. */
function lineOf(reply: string, name: string): string {
  return reply.slice(name.length + 2);
}

function quote(text: string): string {
  const clipped = text.length > 1500 ? `${text.slice(0, 1500)}…` : text;
  return `"${clipped}"`;
}

/**
 * The memories a turn leaves: in chat, what the speaker said as their claim (`told_by`) and what
 * the agent answered (`self`); from the inner voice, the directive (`inner_voice`); in an
 * interview, nothing.
 */
export function memoriesOfTurn(turn: {
  mode: "chat" | "interview" | "inner_voice";
  speaker: string;
  message: string;
  /** The agent's spoken words. */
  spoken: string;
  importance: number;
  at: GameTime;
  /** How the message felt, -1 to 1 (issue 22), stored with what the speaker said. */
  valence?: number | null;
}): NewMemory[] {
  const { mode, speaker, message, spoken, importance, at } = turn;
  if (mode === "interview") return [];
  if (mode === "inner_voice") {
    return [{
      description: message,
      kind: "observation",
      provenance: "inner_voice",
      at,
      importance,
      valence: turn.valence ?? null,
    }];
  }
  return [
    {
      description: `${speaker} told me that ${quote(message)}`,
      kind: "chat",
      provenance: `told_by:${speaker}`,
      at,
      importance,
      valence: turn.valence ?? null,
    },
    {
      description: `I told ${speaker}: ${quote(spoken)}`,
      kind: "chat",
      provenance: "self",
      at,
      importance,
    },
  ];
}

/**
 * Answers a message in character. Stages: anchor (summary + core traits), select (facets by
 * cue phrases and embedding), recall (memories for the dialogue, lorebook keys), bound (hints
 * about the future), enact (one main-model call). Then, except in interviews, stores the turn's
 * memories with their provenance under the agent's lock, and appends the turn to the session.
 *
 * Calls: 1 completion and 2 embedding calls (dialogue + facets; the new memories), plus 1
 * completion and 1 embedding call when the cached summary must be remade; interviews make no
 * second embedding call. Importance comes with the reply, so no importance call; in chat, so does
 * the recalled memory the message updates (`supersedes`), marked superseded by what was told.
 *
 * @throws `world_not_found`, `agent_not_found`, `model_*`, `store_unavailable`,
 * `unprocessable` (token budget too small), `conflict` (agent busy too long).
 */
export async function respond(
  deps: Deps,
  request: { scope: AgentScope; input: RespondInput },
  options: RespondOptions = {},
): Promise<RespondResult> {
  const { scope } = request;
  const input = RespondInput.parse(request.input);
  const world = await getWorld(deps, scope.worldId);
  const agent = (await loadAgent(deps, scope)).value;
  const at = input.at ?? world.clock.now;
  const conversationId = input.conversationId ?? deps.ids.next("c");
  const [record, session, gameActions] = await Promise.all([
    loadPersonaRecord(deps, scope),
    input.conversationId === undefined ? null : loadSession(deps, scope, conversationId),
    // Only a conversation acts: an interview or the inner voice does nothing in the game.
    input.mode === "chat" ? loadGameActions(deps, scope.worldId) : [],
  ]);
  const history: Turn[] = input.history ??
    (session?.turns ?? []).map((t) => ({ speaker: t.speaker, text: t.text }));
  const speaker = input.speaker === undefined
    ? session?.speaker ?? { name: STRANGER, description: null }
    : { name: input.speaker.name, description: input.speaker.description ?? null };
  const speakerName = input.mode === "inner_voice" ? "inner voice" : speaker.name;

  const base = { world, agent, record, at, ablation: "full" as const };
  const [{ anchor, usage: anchorUsage }, social] = await Promise.all([
    anchorStage(deps, base),
    loadSocial(deps, scope),
  ]);
  const ctx: ReplyContext = { ...base, anchor, social };
  const query = dialogueText(cuesOf(history, input.message));
  const embedded = await embedDialogue(
    deps,
    { persona: record?.persona ?? null, queries: [query] },
    {
      ...scope,
      operation: "respond.select",
    },
  );
  const enacted = await enactTurn(deps, ctx, {
    mode: input.mode,
    speaker: input.mode === "inner_voice" ? null : speaker,
    history,
    message: input.message,
    vector: embedded.queries[0],
    relevance: embedded.relevance[0] ?? [],
    touch: input.mode !== "interview",
    options: { facets: input.facets, memories: input.memories, tokenBudget: input.tokenBudget },
    onWords: options.onWords,
    gameActions,
  });
  const acts = checkProposedActions(gameActions, enacted.value.game_actions ?? [], {
    ids: () => deps.ids.next("act"),
  });

  const items = memoriesOfTurn({
    mode: input.mode,
    speaker: speakerName,
    message: input.message,
    spoken: enacted.value.reply,
    importance: enacted.value.importance,
    at,
    valence: typeof enacted.value.valence === "number" ? enacted.value.valence / 5 : null,
  }).map((m) => (options.keyId === undefined ? m : { ...m, keyId: options.keyId }));
  const written = items.length === 0
    ? { records: [], usage: addUsage() }
    : await withAgentLock(deps, { scope }, () =>
      storeTurn(deps, scope, {
        items,
        shown: enacted.memories.map((r) => r.memory),
        supersedes: input.mode === "chat" ? enacted.value.supersedes : null,
      }));
  let replanned = false;
  const usages: Usage[] = [anchorUsage, embedded.usage, enacted.usage, written.usage];
  let replanError: string | undefined;
  if (input.mode === "inner_voice" && enacted.value.replan === true) {
    // The directive is stored either way; a planner that fails leaves the day as it was.
    try {
      const fresh = (await loadAgent(deps, scope)).value;
      const replan = options.replan ?? replanFrom;
      const reason = `inner voice: ${input.message}`;
      usages.push((await replan(deps, { world, agent: fresh }, { from: at, reason })).usage);
      replanned = true;
    } catch (err) {
      if (!(err instanceof SimulacraError)) throw err;
      replanError = err.code;
    }
  }
  await appendSessionTurns(deps, scope, {
    id: conversationId,
    turns: [
      {
        speaker: input.mode === "inner_voice" ? "(inner voice)" : speakerName,
        text: input.message,
        at,
      },
      { speaker: agent.name, text: lineOf(enacted.reply, agent.name), at },
    ],
    speaker: input.mode === "inner_voice" ? null : speaker,
  });

  return {
    reply: enacted.reply,
    text: lineOf(enacted.reply, agent.name),
    thoughts: enacted.value.thoughts ?? null,
    gesture: enacted.value.actions ?? null,
    actions: acts.actions,
    droppedActions: acts.dropped,
    facets: enacted.facets.map((f) => ({ title: f.title, score: f.score })),
    memories: enacted.memories.map((r) => ({
      id: r.memory.id,
      description: r.memory.description,
      provenance: r.memory.provenance,
    })),
    bounded: enacted.value.bounded,
    mode: input.mode,
    conversationId,
    stored: written.records.map((r) => ({ id: r.id, kind: r.kind, provenance: r.provenance })),
    replanned,
    ...(replanError === undefined ? {} : { replanError }),
    used: { lore: enacted.lore },
    stages: {
      anchor,
      select: {
        query,
        ranking: enacted.ranking.map(({ title, score, relevance, cue, matched }) => ({
          title,
          score,
          relevance,
          cue,
          matched,
        })),
      },
      recall: {
        memories: enacted.memories.map((r) => ({ id: r.memory.id, score: r.score, via: r.via })),
      },
      bound: { now: at, hints: enacted.hints, bounded: enacted.value.bounded },
      enact: {
        tokenBudget: enacted.budget.limit,
        estimatedPromptTokens: enacted.budget.estimatedTokens,
        trimmed: enacted.budget.trimmed,
      },
    },
    usage: addUsage(...usages),
  };
}
