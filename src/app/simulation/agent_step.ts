/**
 * @module The behaviour of a world tick for agents: what the generic engine runs per tick
 * (Generative Agents §4.3, §5). Before the steps, every agent's view of its area is worked out and all new
 * observations are scored in one call (and embedded in one); each agent then perceives → reacts
 * (talks, re-plans or carries on) → acts along its plan → reflects when due; after the steps,
 * the objects agents started using change state in one call.
 *
 * The shared work before the steps is in `tick_prepare.ts`. Two agents paired this tick (one saw
 * the other arrive) have the pair's decision and conversation made first, once for both, by
 * whichever step of the two starts first (`_talk_pairs.ts`); what a step does after it is in
 * `_step_act.ts`.
 *
 * The engine runs each step as a unit of work (`engine/unit_of_work.ts`): the step lease and the
 * agent's own lock are taken, and the documents a step reads (the world, the agent, its plan of
 * the day, summary and last look) read, in one round trip (the environment is the tick's, read
 * once by `prepare`); every document the step changes is written, and both leases released, in
 * one atomic commit at its end. A step in a pair cannot hold its lock from
 * the start (the pair's conversation takes both agents' locks): once the pair's decision is
 * made, the rest of the step runs as a unit of work of its own, in the same way.
 */
import {
  addUsage,
  type Agent,
  AgentId,
  type AgentScope,
  type Conversation,
  emptyUsage,
  isPlayer,
  type Usage,
  type World,
  type WorldId,
} from "../../domain/mod.ts";
import { agentKey, agentLockKey, agentOf, listAgents } from "../agents/mod.ts";
import { agentLease, openAgents } from "../transaction.ts";
import { conversationKey, planKey, storeAllOverheard, summaryKey } from "../cognition/mod.ts";
import {
  errorFields,
  type StepOutcome,
  TICK_LEASE_TTL_MS,
  type TickFrame,
  type TickSystem,
  withUnitOfWork,
  type WorkNeeds,
  type WorkUnit,
} from "../engine/mod.ts";
import type { Deps, NewEvent } from "../../ports/mod.ts";
import type { AgentStepSummary } from "./step_summary.ts";
import { applyObjectStates } from "./object_states.ts";
import { seenKey } from "./perception.ts";
import { spentTickBudget, worldKey, worldTickClock } from "../world/mod.ts";
import { coastedStep } from "./coast_step.ts";
import { prepare, type TickShared } from "./tick_prepare.ts";
import { clip, noParts, type StepParts, stepPerceiveReads } from "./_step_perceive.ts";
import { byAgent, pairDecision, talkOf } from "./_talk_pairs.ts";
import { goOn } from "./_step_act.ts";
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
    // Budgets are checked again as each step starts (in process or queued alike): once one is
    // spent, the steps that start after keep their plans; those already running finish.
    step: async (frame, agent, { shared, work }) =>
      isPlayer(agent)
        ? playerStep(agent)
        : await spentTickBudget(deps, frame)
        ? coastedStep(agent)
        : await step(withSeed(deps, frame.world.settings.seed), frame, {
          agent,
          shared,
          work,
          lockWaitMs,
        }),
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
    // Each step's uses come back in `carried` (see `agent_tick.ts`'s `merge`): sorted, the
    // object states do not depend on which step was first.
    finish: async (frame, _outcomes, { shared, storage }) => {
      const d = storage ? { ...deps, storage } : deps;
      const applied = await applyObjectStates(d, frame.world.id as WorldId, {
        at: frame.to,
        uses: [...shared.uses].sort((a, b) => byAgent(a.agentId, b.agentId)),
        leaves: [...shared.leaves].sort((a, b) => byAgent(a.agentId, b.agentId)),
      });
      // After every step, so no step saw them: the same at any concurrency, on any retry.
      const overheard = await overhearTalks(d, frame.world, shared.talks);
      return { ...applied, usage: addUsage(applied.usage, overheard) };
    },
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
  if (talkOf(options.shared, agentId)) return { leases: [], documents: common };
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

/** What a step leaves for the tick's `finish`: the objects its agent started using, and left. */
export type StepCarried = Pick<StepParts, "uses" | "leaves"> & {
  /** The conversation the step's agent started, whose listeners `finish` lets overhear it. */
  talks?: string[];
};

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
): Promise<StepOutcome<AgentStepSummary> & { carried: StepCarried }> {
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
    // The objects put to use or left, for `finish`: the engine collects each step's.
    carried: {
      uses: parts.uses,
      leaves: parts.leaves,
      ...(parts.summary.conversationId ? { talks: [parts.summary.conversationId] } : {}),
    },
  };
}

/** What the listeners of the tick's conversations overheard, written in conversation-id order. */
async function overhearTalks(
  deps: Deps,
  world: World,
  talks: readonly string[],
): Promise<Usage> {
  // Every talk read at once, and what their listeners hold (`storeAllOverheard`): on the hosted
  // backend a few requests, not a few per talk (issue 25's busiest hour).
  const read = await Promise.all(
    [...new Set(talks)].sort().map((id) =>
      deps.storage.documents.get<Conversation>(conversationKey(world.id, id))
    ),
  );
  return await storeAllOverheard(deps, world, read.flatMap((talk) => talk ? [talk.value] : []));
}

/** A player's step: the game moves it, so nothing happens but its place in the summary. */
function playerStep(agent: Agent): StepOutcome<AgentStepSummary> & { carried: StepCarried } {
  return {
    summary: { agentId: agent.id, location: agent.location, action: agent.action, perceived: 0 },
    events: [],
    usage: emptyUsage(),
    failed: false,
    carried: { uses: [], leaves: [] },
  };
}

/** `deps` whose storage is the unit's. */
function withStorage(deps: Deps, unit: WorkUnit): Deps {
  return { ...deps, storage: unit.storage };
}

function agentError(frame: TickFrame<World>, agentId: string, err: unknown): NewEvent {
  return { type: "agent_error", at: frame.to, agentId, ...errorFields(err) };
}
