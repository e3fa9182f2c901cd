/**
 * @module The behaviour of a world tick for agents: what the generic engine runs per tick
 * (Generative Agents §4.3, §5). Before the steps, every agent's view of its area is worked out and all new
 * observations are scored in one call (and embedded in one); each agent then perceives → reacts
 * (talks, re-plans or carries on) → acts along its plan → reflects when due; after the steps,
 * the objects agents started using change state in one call.
 *
 * The shared work before the steps is in `tick_prepare.ts`. Two agents paired this tick (one saw
 * the other arrive) have the pair's decision and conversation made first, once for both, by
 * whichever step of the two starts first (`_talk_pairs.ts`).
 *
 * The engine runs each step as a unit of work (`engine/unit_of_work.ts`): the step lease and the
 * agent's own lock are taken, and the documents a step reads (the world, the agent, its plan of
 * the day, summary and last look) read, in one round trip (the environment is the tick's, read
 * once by `prepare`); the cognition functions take the agent's lock again at no cost; every document the step changes is written, and both
 * leases released, in one atomic commit at its end. A step in a pair cannot hold its lock from
 * the start (the pair's conversation takes both agents' locks): once the pair's decision is
 * made, the rest of the step runs as a unit of work of its own, in the same way.
 */
import { type Agent } from "../../domain/mod.ts";
import { agentKey, listAgents } from "../agents/mod.ts";
import { agentOf, type AgentTransaction } from "../agents/mod.ts";
import { agentLockKey } from "../agents/mod.ts";
import { agentLease, openAgents } from "../transaction.ts";
import { planKey, summaryKey } from "../cognition/mod.ts";
import { withUnitOfWork, type WorkNeeds, type WorkUnit } from "../engine/mod.ts";
import { currentAction } from "../cognition/mod.ts";
import type { PlanMade } from "../../domain/mod.ts";
import { decideReaction, type ReactionResult } from "../cognition/mod.ts";
import { reflectIfDue } from "../cognition/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { AgentId, type AgentScope, type WorldId } from "../../domain/mod.ts";
import { addUsage, emptyUsage } from "../../domain/mod.ts";
import type { NewEvent } from "../../ports/mod.ts";
import {
  errorFields,
  type StepOutcome,
  TICK_LEASE_TTL_MS,
  type TickFrame,
  type TickSystem,
} from "../engine/mod.ts";
import { resolvePath } from "../../domain/mod.ts";
import type { AgentStepSummary } from "./step_summary.ts";
import { applyObjectStates } from "./object_states.ts";
import { seenKey } from "./perception.ts";
import { type World } from "../../domain/mod.ts";
import { worldKey } from "../world/mod.ts";
import { worldTickClock } from "../world/mod.ts";
import { prepare, TickShared, TickView } from "./tick_prepare.ts";
import {
  clip,
  EVENT_LIST_MAX,
  noParts,
  perceiveNew,
  type StepParts,
  stepPerceiveReads,
} from "./_step_perceive.ts";
import { byAgent, pairDecision, type PairedReaction, pairOf } from "./_talk_pairs.ts";
import { withSeed } from "../../mind/mod.ts";

/** Options for {@linkcode agentSteps}. */
export interface AgentTickOptions {
  /** How long a step waits for its agent's lock (a conversation holds it). @default 120000 */
  lockWaitMs?: number;
}

/**
 * The agent behaviour of a world tick: what `agentTickSystem` (`agent_tick.ts`) runs. Model
 * calls per tick: at most
 * one importance call for every agent's new observations together (idle texts and texts scored
 * in earlier ticks cost none), one object-state call for every object put to a new use (known
 * object and action pairs cost none), and per agent only what its plan, reaction and reflection
 * need. A reaction is decided only about an agent that just came into view (at most one per
 * agent and tick, one per pair, none when either talked within the world's
 * `talkCooldownMinutes`) or about objects whose state someone other than an agent changed, and
 * never while the observer sleeps.
 * @see Generative Agents §4.3, §5, §9 (cost).
 */
export function agentSteps(
  deps: Deps,
  options: AgentTickOptions = {},
): TickSystem<Agent, TickShared, AgentStepSummary, World> {
  const lockWaitMs = options.lockWaitMs ?? 120_000;
  return {
    clock: worldTickClock,
    units: (frame) => listAgents(deps, frame.world.id as WorldId),
    unitKey: (agent) => agent.id,
    prepare: (frame, agents) => prepare(deps, frame, agents),
    needs: (frame, agentId, shared) => stepNeeds(frame, agentId, { shared, lockWaitMs }),
    step: async (frame, agent, { shared, work }) => {
      const seeded = withSeed(deps, frame.world.settings.seed);
      const { uses, leaves, ...outcome } = await step(seeded, frame, {
        agent,
        shared,
        work,
        lockWaitMs,
      });
      // The objects put to use or left, for `finish`: the tick's shared state collects them.
      shared.uses.push(...uses);
      shared.leaves.push(...leaves);
      return outcome;
    },
    failed: (frame, agent, error) => ({
      summary: {
        agentId: agent.id,
        location: agent.location,
        action: agent.action,
        perceived: 0,
        error: errorFields(error).error,
      },
      events: [agentError(frame, agent.id, error)],
      usage: emptyUsage(),
    }),
    // Steps push uses as they finish: sorted, the object states do not depend on which was first.
    finish: (frame, _outcomes, { shared, storage }) =>
      applyObjectStates(storage ? { ...deps, storage } : deps, frame.world.id as WorldId, {
        at: frame.to,
        uses: [...shared.uses].sort((a, b) => byAgent(a.agentId, b.agentId)),
        leaves: [...shared.leaves].sort((a, b) => byAgent(a.agentId, b.agentId)),
      }),
  };
}

/**
 * What a step reads for sure, and the agent's lease, held for the whole step. The environment
 * is not among them: the step reads the tick's (`shared.env`).
 */
function stepNeeds(
  frame: TickFrame<World>,
  agentId: string,
  options: { shared: TickShared; lockWaitMs: number },
): WorkNeeds {
  const common = [worldKey(frame.world.id)];
  // A paired step waits for the pair's decision, a transaction over both agents: it opens its
  // own transaction after (`step`).
  if (pairOf(options.shared.views, agentId)) return { leases: [], documents: common };
  const own = agentNeeds(frame, agentId, options);
  return { ...own, documents: [...own.documents, ...common] };
}

/** The agent's lease, its own documents, and the reads of its perceive. */
function agentNeeds(
  frame: TickFrame<World>,
  agentId: string,
  { shared, lockWaitMs }: { shared: TickShared; lockWaitMs: number },
): WorkNeeds {
  const worldId = frame.world.id;
  const scope: AgentScope = { worldId: worldId as WorldId, agentId: agentId as AgentId };
  return {
    leases: [agentLease(scope, { ttlMs: TICK_LEASE_TTL_MS, waitMs: lockWaitMs })],
    documents: [
      agentKey(scope),
      planKey(worldId, agentId, frame.to.slice(0, 10)),
      summaryKey({ worldId: scope.worldId, id: scope.agentId }),
      seenKey(worldId, agentId),
    ],
    reads: stepPerceiveReads(frame, agentId, shared),
    rebase: [agentKey(scope)],
  };
}

/** What a step is given: its agent, the tick's shared state, and the engine's unit of work. */
interface StepInput {
  agent: Agent;
  shared: TickShared;
  /** The unit of work the engine runs the step in (holding the agent's lease when unpaired). */
  work?: WorkUnit;
  lockWaitMs: number;
}

/**
 * One agent's step: the decision of the pair it is in (a transaction over both agents), then
 * perceive, react, act and reflect in one transaction over the agent: the engine's unit of work
 * when it holds the agent's lease, else one of its own (its lease taken and its documents read
 * in one round trip, its writes in one commit).
 */
async function step(
  deps: Deps,
  frame: TickFrame<World>,
  { agent, shared, work, lockWaitMs }: StepInput,
): Promise<StepOutcome<AgentStepSummary> & Pick<StepParts, "uses" | "leaves">> {
  const scope: AgentScope = { worldId: frame.world.id as WorldId, agentId: agent.id };
  const base: AgentStepSummary = {
    agentId: agent.id,
    location: agent.location,
    action: agent.action,
    perceived: 0,
  };
  let parts: StepParts;
  let failed = false;
  try {
    const pair = pairDecision(deps, { frame, shared }, agent.id);
    const paired = await pair;
    const open = { world: frame.world, scopes: [scope] };
    const run = (unit: WorkUnit) =>
      openAgents(unit, open).then((tx) =>
        goOn(withStorage(deps, unit), agentOf(tx, 0), { frame, shared, paired })
      );
    parts = pair === undefined && work?.leases.some((l) => l.key === agentLockKey(scope))
      ? await run(work)
      : await withUnitOfWork(deps, agentNeeds(frame, agent.id, { shared, lockWaitMs }), run);
  } catch (err) {
    failed = true;
    parts = { ...noParts(), summary: { error: errorFields(err).error } };
    parts.events.push(agentError(frame, agent.id, err));
  }
  const plans = parts.plans.map((p): NewEvent => ({
    type: "plan",
    at: frame.to,
    agentId: p.agentId,
    date: p.date,
    replan: p.replan,
    ...(p.reason ? { reason: clip(p.reason) } : {}),
  }));
  return {
    summary: { ...base, ...parts.summary },
    events: [...parts.events, ...plans],
    usage: addUsage(...parts.usages),
    failed,
    uses: parts.uses,
    leaves: parts.leaves,
  };
}

/** `deps` whose storage is the unit's. */
function withStorage(deps: Deps, unit: WorkUnit): Deps {
  return { ...deps, storage: unit.storage };
}

/** A step after its pair's decision: perceive, react, act, reflect, in its agent's transaction. */
async function goOn(
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
  const view = shared.views.get(agent.id)!;
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
  const acted = await currentAction(deps, current, { at: to, env: shared.env });
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
  }
  return events;
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

function agentError(frame: TickFrame<World>, agentId: string, err: unknown): NewEvent {
  return { type: "agent_error", at: frame.to, agentId, ...errorFields(err) };
}
