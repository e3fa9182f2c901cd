/**
 * @module Private to the agent step: what a step does after its pair's decision, in its agent's
 * transaction: perceive, react (talk, re-plan or carry on), act along its plan, reflect when due
 * (Generative Agents §4.3, §5), consolidate its memories once a game night, and the events each
 * phase leaves.
 */
import { type AgentTransaction } from "../agents/mod.ts";
import {
  currentAction,
  decideReaction,
  type ReactionResult,
  reflectIfDue,
} from "../cognition/mod.ts";
import {
  type ConversationResult,
  type PlanMade,
  resolvePath,
  type World,
} from "../../domain/mod.ts";
import { consolidateIfDue } from "../memory/mod.ts";
import type { Deps, NewEvent } from "../../ports/mod.ts";
import type { TickFrame } from "../engine/mod.ts";
import type { TickShared } from "./tick_prepare.ts";
import type { TickView } from "./tick_views.ts";
import { clip, EVENT_LIST_MAX, perceiveNew, type StepParts } from "./_step_perceive.ts";
import type { PairedReaction } from "./_talk_pairs.ts";

/** A step after its pair's decision: perceive, react, act, reflect, in its agent's transaction. */
export async function goOn(
  deps: Deps,
  tx: AgentTransaction,
  { frame, shared, paired }: {
    frame: TickFrame<World>;
    shared: TickShared;
    paired: PairedReaction | undefined;
  },
): Promise<StepParts> {
  const { to } = frame;
  const agent = tx.agent;
  const view = shared.views.get(agent.id);
  // 1. Perceive what is new in its area (event ids make a repeated tick harmless).
  const perceived = await perceiveNew(deps, tx, { frame, shared });
  const { summary, events, usages, plans, uses, leaves } = perceived.parts;
  // The agent as perceiving left it (known areas, counters): what reacting, acting and
  // reflecting read (a pair's conversation happened before this transaction read it).
  const current: AgentTransaction = { ...tx, agent: perceived.agent };

  // 2. React to a newcomer or to objects someone changed; at most one conversation per agent.
  const reaction = await react(deps, current, { frame, view, paired });
  if (reaction) {
    usages.push(reaction.usage);
    plans.push(...reaction.plans);
    if (reaction.vetoed === undefined) summary.reacted = reaction.decision;
    events.push(...reactionEvents(frame, { agentId: agent.id, view, reaction }));
    if (reaction.conversation) summary.conversationId = reaction.conversation.id;
  }

  // 3. Act and move along the plan (a new game day makes its plan here).
  const acted = await currentAction(deps, current, {
    at: to,
    env: shared.env,
    gameActions: shared.gameActions,
  });
  usages.push(acted.usage);
  plans.push(...acted.plans);
  const action = acted.action;
  if (action) {
    summary.location = action.location;
    summary.action = action.description;
    summary.emoji = action.emoji;
    const moved = action.location !== agent.location;
    if (moved || action.description !== agent.action) {
      events.push({
        type: "action",
        at: to,
        agentId: agent.id,
        action: action.description,
        emoji: action.emoji,
        location: action.location,
        start: action.start,
        end: action.end,
      });
      // The step is one of the game's actions: the game carries it out and reports back
      // through perceive with this id as the eventId.
      if (action.gameAction) {
        events.push({ type: "action.requested", at: to, agentId: agent.id, ...action.gameAction });
      }
      // The model chose a game action for the step that failed the check: the game never sees
      // it, and its developer sees why.
      if (action.droppedGameAction) {
        events.push({
          type: "action.dropped",
          at: to,
          agentId: agent.id,
          ...action.droppedGameAction,
        });
      }
      if (shared.env && resolvePath(shared.env, action.location)?.object) {
        uses.push({
          agentId: agent.id,
          agentName: agent.name,
          path: action.location,
          action: action.description,
        });
      }
    }
    if (moved) {
      events.push({
        type: "moved",
        at: to,
        agentId: agent.id,
        from: agent.location,
        to: action.location,
      });
      if (agent.location !== null) leaves.push({ agentId: agent.id, path: agent.location });
    }
  }

  // 4. Reflect when the importance since the last reflection reached the threshold.
  const reflected = await reflectIfDue(deps, current, to);
  usages.push(reflected.usage);
  if (reflected.reflections.length > 0) {
    summary.reflected = reflected.reflections.length;
    events.push({
      type: "reflection",
      at: to,
      agentId: agent.id,
      count: reflected.reflections.length,
      insights: reflected.reflections.slice(0, EVENT_LIST_MAX).map((m) => clip(m.description)),
    });
  }
  // 5. Once a game night, consolidate the day's memories ("sleep"): no model call.
  const slept = await consolidateIfDue(current, to);
  if (slept !== null) events.push({ type: "consolidated", at: to, agentId: agent.id, ...slept });
  return { summary, events, usages, plans, uses, leaves };
}

/** The events of a reaction: the decision, and the conversation it held. */
function reactionEvents(
  frame: TickFrame<World>,
  { agentId, view, reaction }: { agentId: string; view: TickView; reaction: ReactionResult },
): NewEvent[] {
  const events: NewEvent[] = [{
    type: "reaction",
    at: frame.to,
    agentId,
    decision: reaction.decision,
    reason: clip(reaction.reason),
    reaction: reaction.reaction,
    ...(reaction.vetoed ? { vetoed: reaction.vetoed } : {}),
    ...(view.trigger && "observed" in view.trigger
      ? { observed: view.trigger.observed.observed!.agentId }
      : {}),
  }];
  const talk = reaction.conversation;
  if (talk) {
    events.push({
      type: "conversation",
      at: talk.startedAt,
      agentId,
      conversationId: talk.id,
      participants: talk.participants,
      topic: talk.topic === null ? null : clip(talk.topic),
      lines: talk.lines.length,
      endedBy: talk.endedBy,
      endedAt: talk.endedAt,
    });
    if (talk.open) events.push(conversationStarted(talk, agentId));
  }
  return events;
}

/**
 * The announcement of a conversation that waits for a player: the game answers it with
 * `POST …/conversations/{conversationId}/lines`.
 */
function conversationStarted(talk: ConversationResult, agentId: string): NewEvent {
  const first = talk.lines[0];
  return {
    type: "conversation.started",
    at: talk.startedAt,
    agentId,
    conversationId: talk.id,
    participants: talk.participants,
    players: talk.players ?? [],
    ...(first ? { line: { speaker: first.speaker, text: first.text } } : {}),
  };
}

/**
 * The decision about the view's trigger, if any: about objects it is made now; about a newcomer
 * it is the pair's, made before the step went on. Null when there is nothing to decide.
 */
async function react(
  deps: Deps,
  tx: AgentTransaction,
  { frame, view, paired }: {
    frame: TickFrame<World>;
    view: TickView;
    paired: PairedReaction | undefined;
  },
): Promise<(ReactionResult & { plans: PlanMade[] }) | null> {
  const trigger = view.trigger;
  if (!trigger) return null;
  if ("objects" in trigger) {
    return await decideReaction(deps, { ...tx, agents: [tx.agent], leases: [tx.lease] }, {
      at: frame.to,
      observations: trigger.objects.map((s) => s.text),
    });
  }
  // Only a pair's deciding agent has a newcomer trigger: the decision is its own.
  if (paired?.error !== undefined) throw paired.error;
  return paired?.result ?? null;
}
