/** @module Reacting: carry on, react (re-plan) or talk after an observation, with vetoes that cost no model call (Generative Agents §4.3). */
import { z } from "zod";
import { agentOf, type AgentsTransaction } from "../agents/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import {
  addUsage,
  AgentId,
  checkCalendar,
  type Conversation,
  ConversationResult,
  emptyUsage,
  GameTime,
  isPlayer,
  type PlanMade,
  ReactionDecision,
  SimulacraError,
  type Usage,
  UsageCounts,
  type WorldId,
} from "../../domain/mod.ts";
import { recall } from "../memory/mod.ts";
import { bondForPrompt, loadBonds } from "../social/mod.ts";
import { decideToReact } from "../../mind/mod.ts";
import { agentSummary } from "./agent_summary.ts";
import { conversationKey } from "./conversation_key.ts";
import { hardVeto, type ObservedAgent, ReactionVeto, SLEEPING } from "./_reaction_veto.ts";
import { converse } from "./dialogue.ts";
import { currentAction, replanFrom } from "./planning.ts";

/** What {@linkcode decideReaction} decided, and what it cost. */
export const ReactionResult = z
  .object({
    decision: ReactionDecision,
    reason: z.string(),
    reaction: z.string().nullable().meta({
      description: "For react, the new activity; for talk, what the observer wants to talk about",
    }),
    vetoed: ReactionVeto.optional().meta({
      description: "Set when a hard rule decided without asking the model (decision: continue)",
    }),
    conversation: ConversationResult.optional().meta({
      description: "The conversation a talk decision started",
    }),
    usage: UsageCounts,
  })
  .meta({ id: "ReactionResult" });
export type ReactionResult = z.infer<typeof ReactionResult>;

/** The body of `POST /v1/worlds/{world}/agents/{agent}/react`. */
export const ReactInput = z
  .strictObject({
    observations: z.array(z.string().trim().min(1).max(2000)).min(1).max(20),
    at: GameTime.optional().meta({
      description: "Game time of the observation; default: the world clock",
    }),
    observed: z
      .strictObject({
        agent: AgentId,
        status: z.string().trim().min(1).max(300).optional().meta({
          description: "What the observed agent is doing; default: its current planned action",
        }),
      })
      .optional()
      .meta({ description: "The agent in the observation, who may be talked to" }),
  })
  .meta({
    id: "ReactInput",
    example: {
      observations: ["Eddy Lin is taking a short walk around the garden"],
      observed: { agent: "eddy", status: "taking a short walk" },
    },
  });
export type ReactInput = z.infer<typeof ReactInput>;

export { type ObservedAgent, ReactionVeto };

/** Memories per retrieval query. */
const RECALL_K = 6;

/**
 * Decides how `agent` answers what it just observed. First the hard vetoes, which make no model
 * call (they answer "continue" with `vetoed` set): the observer is asleep (its current action
 * mentions sleep) or already in a conversation; and, when another agent is observed, that agent
 * is asleep or talking, it is late night (23:00–06:00), or the two talked within
 * `conversationCooldownMinutes`. Late night and the cooldown apply only to an observed agent:
 * they stop conversations, not reactions to a fire.
 *
 * Otherwise one fast-model call decides, given the observer's summary, its current action, the
 * observations and the memories from two retrievals ("<observer>'s relationship with
 * <observed>", "<observed> is <status>"; without an observed agent, one retrieval for the
 * observations). "react" re-plans the rest of the day from `at`; "talk" starts a conversation
 * with the observed agent about the reaction.
 *
 * With a `conversationId` (a tick's pair), a conversation of that id already stored means an
 * earlier try of this decision talked and stopped before finishing: it is finished (see
 * `ConverseOptions.id`) before any veto or model call, and answered as the "talk" it was (the
 * first try's reason is lost; the conversation's topic stands in for it).
 *
 * The observer is the transaction's first agent; to talk, the observed agent must be its second
 * (the transaction holds both leases, so the vetoes and the talk see the same states).
 * @throws `invalid_request` (an agent observing itself), `model_*`, `store_unavailable`.
 * @see Generative Agents §4.3 "Reacting"; Park et al. 2023 §4.3.2.
 */
export async function decideReaction(
  deps: Pick<Deps, "model" | "embedder" | "ids">,
  tx: AgentsTransaction,
  { at, observations, observed, conversationId, listeners }: {
    /** The game time of the observations. */
    at: GameTime;
    observations: string[];
    /** The agent the observations are about, when one is. */
    observed?: ObservedAgent;
    /** The id a conversation it starts gets. @default a new id */
    conversationId?: string;
    /**
     * Who may overhear a conversation it starts, chosen by the caller (a tick, from where
     * everyone was as it began); their memories of it are then the caller's to write.
     * @default the agents nearby now, written at once
     */
    listeners?: AgentId[];
  },
): Promise<ReactionResult & { plans: PlanMade[] }> {
  const { world } = tx;
  const agent = tx.agents[0];
  const d = { ...deps, storage: tx.storage };
  if (observed?.agentId === agent.id) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot react to agent "${agent.id}" observing itself: name another agent in "observed"`,
    );
  }
  if (conversationId !== undefined && observed !== undefined) {
    const held = await tx.storage.documents.get<Conversation>(
      conversationKey(world.id, conversationId),
    );
    if (held !== null) {
      const topic = held.value.topic;
      const talked = await talkTo(deps, tx, { at, topic, conversationId, listeners });
      const reason = topic ?? `talked with ${observed.name}`;
      return { decision: "talk", reason, reaction: topic, ...talked };
    }
  }
  const veto = await hardVeto(d, { world, agent, at }, observed);
  if (veto !== null) return { ...vetoed(veto.code, veto.reason, []), plans: [] };

  // The planner may make the day's plan on first use; that is planning's cost, not ours.
  const current = await currentAction(deps, agentOf(tx, 0), { at });
  const usages: Usage[] = [current.usage];
  const plans = current.plans;
  const doing = current.action?.description ?? null;
  if (doing !== null && SLEEPING.test(doing)) {
    return { ...vetoed("asleep", `${agent.name} is asleep`, usages), plans };
  }

  const summary = await agentSummary(d, { world, agent, at });
  usages.push(summary.usage);
  const queries = observed === undefined ? [observations.join("; ")] : [
    `${agent.name}'s relationship with ${observed.name}`,
    `${observed.name} is ${observed.status}`,
  ];
  const [recalled, bonds] = await Promise.all([
    recall(d, { world, agent, queries }, { at, k: RECALL_K }),
    observed === undefined
      ? null
      : loadBonds(d, { worldId: world.id as WorldId, agentId: agent.id }),
  ]);
  usages.push(recalled.usage);
  const memories = recalled.results.map((r) => r.map((s) => s.memory.description));
  const answer = await decideToReact(deps, {
    agentName: agent.name,
    summary: summary.summary.text,
    now: at,
    currentAction: doing,
    observations,
    observed: observed === undefined ? null : { name: observed.name, status: observed.status },
    relationship: observed === undefined ? [] : memories[0],
    context: observed === undefined ? memories[0] : memories[1],
    bond: observed === undefined
      ? null
      : bondForPrompt(bonds, { agentName: agent.name, name: observed.name }).shown,
  }, { worldId: world.id, agentId: agent.id });
  usages.push(answer.usage);
  const { decision, reason, reaction } = answer;

  if (decision === "react") {
    const replanned = await replanFrom(d, { world, agent }, {
      from: at,
      reason: reaction ?? reason,
      fence: tx.leases[0],
    });
    usages.push(replanned.usage);
    plans.push(...replanned.plans);
  } else if (decision === "talk" && observed !== undefined) {
    const talked = await talkTo(deps, tx, {
      at,
      topic: reaction ?? reason,
      conversationId,
      listeners,
    });
    usages.push(talked.usage);
    plans.push(...talked.plans);
    return { decision, reason, reaction, ...talked, usage: addUsage(...usages), plans };
  }
  return { decision, reason, reaction, usage: addUsage(...usages), plans };
}

/** The conversation the observer starts with the observed agent (or finishes, see `converse`). */
async function talkTo(
  deps: Pick<Deps, "model" | "embedder" | "ids">,
  tx: AgentsTransaction,
  { at, topic, conversationId, listeners }: {
    at: GameTime;
    topic: string | null;
    conversationId?: string;
    listeners?: AgentId[];
  },
): Promise<{ conversation: ConversationResult; usage: Usage; plans: PlanMade[] }> {
  const { plans, ...conversation } = await converse(deps, tx, {
    topic: topic ?? undefined,
    at,
    id: conversationId,
    listeners,
  });
  return { conversation, usage: conversation.usage, plans };
}

/**
 * A reaction on request, in a transaction over the observer and, when `input.observed` names
 * one, the observed agent: when the observed agent's status is not given, takes it from its
 * current planned action (after the vetoes that need no status, so a vetoed reaction never
 * plans the other agent's day). Does not store the observations: perceive them first.
 * @throws `unprocessable` (`at` outside an agent's calendar, as for plans), and those of
 * {@linkcode decideReaction}.
 */
export async function reactHeld(
  deps: Pick<Deps, "model" | "embedder" | "ids">,
  tx: AgentsTransaction,
  input: ReactInput,
): Promise<ReactionResult> {
  const { world } = tx;
  const agent = tx.agents[0];
  // An agent observing itself is in the transaction once; deciding refuses it.
  const other = tx.agents[1] ?? (input.observed === undefined ? undefined : agent);
  const at = input.at ?? world.clock.now;
  for (const a of tx.agents) checkCalendar(world, a, at.slice(0, 10));
  let observed: ObservedAgent | undefined;
  let usage = emptyUsage();
  if (other !== undefined) {
    let status = input.observed?.status;
    if (status === undefined && isPlayer(other)) status = other.action ?? undefined;
    if (status === undefined && other.id !== agent.id) {
      // Veto first what needs no status, so a vetoed reaction never plans the other's day.
      const early = await hardVeto(tx, { world, agent, at }, {
        agentId: other.id,
        name: other.name,
      });
      if (early !== null) return vetoed(early.code, early.reason, []);
      const current = await currentAction(deps, agentOf(tx, 1), { at });
      usage = current.usage;
      status = current.action?.description ?? other.action ?? undefined;
    }
    observed = { agentId: other.id, name: other.name, status: status ?? "idle" };
  }
  const { plans: _plans, ...result } = await decideReaction(deps, tx, {
    at,
    observations: input.observations,
    observed,
  });
  return { ...result, usage: addUsage(usage, result.usage) };
}

function vetoed(code: ReactionVeto, reason: string, usages: Usage[]): ReactionResult {
  return { decision: "continue", reason, reaction: null, vetoed: code, usage: addUsage(...usages) };
}
