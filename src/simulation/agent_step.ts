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
import { z } from "zod";
import { type Agent, agentKey, listAgents, loadAgent } from "../agents/agent.ts";
import { agentBusy, agentLockKey } from "../agents/agent_lock.ts";
import { summaryKey } from "../cognition/agent_summary.ts";
import { planKey } from "../cognition/plan_store.ts";
import { withUnitOfWork, type WorkNeeds } from "../engine/unit_of_work.ts";
import { currentAction } from "../cognition/planning.ts";
import type { PlanMade } from "../cognition/plan.ts";
import { decideReaction, type ReactionResult } from "../cognition/reaction.ts";
import { reflectIfDue } from "../cognition/reflection.ts";
import type { Deps } from "../deps.ts";
import { ConflictError } from "../errors.ts";
import { AgentId, type AgentScope, type WorldId } from "../ids.ts";
import { addUsage, emptyUsage, type Usage } from "../model/usage.ts";
import type { NewEvent } from "../ports/event_log.ts";
import {
  errorFields,
  type StepOutcome,
  TICK_LEASE_TTL_MS,
  type TickFrame,
  type TickSystem,
} from "../engine/tick_engine.ts";
import { resolvePath } from "../world/environment.ts";
import { applyObjectStates } from "./object_states.ts";
import { seenKey } from "./perception.ts";
import { type World, worldKey } from "../world/world.ts";
import { worldTickClock } from "../world/clock.ts";
import { AgentView, prepare, TickShared } from "./tick_prepare.ts";
import {
  clip,
  EVENT_LIST_MAX,
  perceiveNew,
  perceiveReads,
  type StepLog,
} from "./_step_perceive.ts";
import { byAgent, pairDecision, type PairedReaction, pairOf, withSeed } from "./_talk_pairs.ts";

/** What one agent did in a tick. */
export const AgentStepSummary = z
  .object({
    agentId: AgentId,
    location: z.string().nullable().meta({ description: "Where it is after the tick" }),
    action: z.string().nullable().meta({ description: "What it is doing after the tick" }),
    emoji: z.string().optional(),
    perceived: z.number().int().meta({ description: "New observations stored this tick" }),
    reacted: z.string().optional().meta({
      description: "continue, react or talk, when the model decided on something it saw",
    }),
    conversationId: z.string().optional(),
    reflected: z.number().int().optional().meta({ description: "Reflections stored" }),
    error: z.string().optional().meta({
      description: "Why the step failed (the agent_error event has it too)",
    }),
  })
  .meta({ id: "AgentStepSummary" });

export type AgentStepSummary = z.infer<typeof AgentStepSummary>;

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
    needs: (frame, agentId, shared) => stepNeeds(frame, agentId, shared, lockWaitMs),
    step: (frame, agent, { shared, storage, reads }) =>
      step(
        withSeed(storage ? { ...deps, storage } : deps, frame.world.settings.seed),
        frame,
        agent,
        shared,
        { lockWaitMs, read: reads },
      ),
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
 * What a step reads for sure, and the agent's lock, held for the whole step. The environment is
 * not among them: the step reads the tick's (`shared.env`).
 */
function stepNeeds(
  frame: TickFrame<World>,
  agentId: string,
  shared: TickShared,
  lockWaitMs: number,
): WorkNeeds {
  const common = [worldKey(frame.world.id)];
  // A paired step waits for the pair's conversation, which takes both agents' locks and writes
  // both agents' documents: it takes its lock and reads its own documents after (`step`).
  if (pairOf(shared.views, agentId)) return { leases: [], documents: common };
  const own = agentNeeds(frame, agentId, shared, lockWaitMs);
  return { ...own, documents: [...own.documents, ...common] };
}

/** The agent's lock, its own documents, and the reads of its perceive. */
function agentNeeds(
  frame: TickFrame<World>,
  agentId: string,
  shared: TickShared,
  lockWaitMs: number,
): WorkNeeds {
  const worldId = frame.world.id;
  const scope: AgentScope = { worldId: worldId as WorldId, agentId: agentId as AgentId };
  return {
    leases: [{
      key: agentLockKey(scope),
      ttlMs: TICK_LEASE_TTL_MS,
      waitMs: lockWaitMs,
      busy: () => agentBusy(scope),
    }],
    documents: [
      agentKey(scope),
      planKey(worldId, agentId, frame.to.slice(0, 10)),
      summaryKey({ worldId: scope.worldId, id: scope.agentId }),
      seenKey(worldId, agentId),
    ],
    reads: perceiveReads(frame, agentId, shared),
  };
}

async function step(
  deps: Deps,
  frame: TickFrame<World>,
  agent: Agent,
  shared: TickShared,
  perceiving: { lockWaitMs: number; read?: Promise<unknown> },
): Promise<StepOutcome<AgentStepSummary>> {
  const { to } = frame;
  const plans: PlanMade[] = [];
  const events: NewEvent[] = [];
  const usages: Usage[] = [];
  const summary: AgentStepSummary = {
    agentId: agent.id,
    location: agent.location,
    action: agent.action,
    perceived: 0,
  };
  let failed = false;
  try {
    // 0. The decision of the pair it is in (and the conversation), before either agent goes on.
    // The conversation has released both agents' locks by then: the rest of a paired step is a
    // unit of work of its own, as an unpaired step is (its lock taken and its documents read in
    // one round trip, its writes in one commit); each step of the pair takes only its own lock.
    const pair = pairDecision(deps, frame, shared, agent.id);
    const paired = await pair;
    const log = { summary, events, usages, plans };
    if (pair === undefined) await goOn(deps, frame, agent, shared, perceiving, paired, log);
    else {
      await withUnitOfWork(
        deps,
        agentNeeds(frame, agent.id, shared, perceiving.lockWaitMs),
        (storage, _claim, read) =>
          goOn({ ...deps, storage }, frame, agent, shared, { ...perceiving, read }, paired, log),
      );
    }
  } catch (err) {
    failed = true;
    summary.error = errorFields(err).error;
    events.push(agentError(frame, agent.id, err));
  }
  events.push(...plans.map((p): NewEvent => ({
    type: "plan",
    at: to,
    agentId: p.agentId,
    date: p.date,
    replan: p.replan,
    ...(p.reason ? { reason: clip(p.reason) } : {}),
  })));
  return { summary, events, usage: addUsage(...usages), failed };
}

/** A step after its pair's decision: perceive, react, act, reflect. */
async function goOn(
  deps: Deps,
  frame: TickFrame<World>,
  agent: Agent,
  shared: TickShared,
  perceiving: { lockWaitMs: number; read?: Promise<unknown> },
  paired: PairedReaction | undefined,
  log: StepLog,
): Promise<void> {
  const { summary, events, usages, plans } = log;
  const { world, to } = frame;
  const scope: AgentScope = { worldId: world.id as WorldId, agentId: agent.id };
  const view = shared.views.get(agent.id)!;
  // 1. Perceive what is new in its area (event ids make a repeated tick harmless).
  await perceiveNew(deps, frame, agent, shared, perceiving, log);

  // The agent as perceiving left it (known areas, counters): what reacting and acting read.
  const current = (await loadAgent(deps, scope)).value;

  // 2. React to a newcomer or to objects someone changed; at most one conversation per agent.
  const reaction = await react(deps, frame, current, view, paired);
  if (reaction) {
    usages.push(reaction.usage);
    plans.push(...reaction.plans);
    if (reaction.vetoed === undefined) summary.reacted = reaction.decision;
    events.push({
      type: "reaction",
      at: to,
      agentId: agent.id,
      decision: reaction.decision,
      reason: clip(reaction.reason),
      reaction: reaction.reaction,
      ...(reaction.vetoed ? { vetoed: reaction.vetoed } : {}),
      ...(view.trigger && "observed" in view.trigger
        ? { observed: view.trigger.observed.observed!.agentId }
        : {}),
    });
    const talk = reaction.conversation;
    if (talk) {
      summary.conversationId = talk.id;
      events.push({
        type: "conversation",
        at: talk.startedAt,
        agentId: agent.id,
        conversationId: talk.id,
        participants: talk.participants,
        topic: talk.topic === null ? null : clip(talk.topic),
        lines: talk.lines.length,
        endedBy: talk.endedBy,
        endedAt: talk.endedAt,
      });
    }
  }

  // 3. Act and move along the plan (a new game day makes its plan here).
  const acted = await currentAction(deps, world, current, to, { env: shared.env });
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
        shared.uses.push({
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
      if (agent.location !== null) {
        shared.leaves.push({ agentId: agent.id, path: agent.location });
      }
    }
  }

  // 4. Reflect when the importance since the last reflection reached the threshold. Read
  // again: a conversation this step added to the counter.
  const latest = (await loadAgent(deps, scope)).value;
  try {
    const reflected = await reflectIfDue(deps, world, latest, to);
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
  } catch (err) {
    // Busy (e.g. in another agent's conversation): the reflection stays due for the next tick.
    if (!(err instanceof ConflictError)) throw err;
  }
}

/**
 * The decision about the view's trigger, if any: about objects it is made now; about a newcomer
 * it is the pair's, made before the step went on. Null when there is nothing to decide.
 */
async function react(
  deps: Deps,
  frame: TickFrame<World>,
  agent: Agent,
  view: AgentView,
  paired: PairedReaction | undefined,
): Promise<(ReactionResult & { plans: PlanMade[] }) | null> {
  const trigger = view.trigger;
  if (!trigger) return null;
  if ("objects" in trigger) {
    return await decideReaction(deps, { world: frame.world, agent, at: frame.to }, {
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
