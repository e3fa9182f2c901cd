/**
 * @module Who talks to whom in a tick, paired before the steps in agent-id order; each pair's
 * decision, made once by the first step of the pair: what makes a tick replay the same at any
 * concurrency (with the world's seed on every model call, `withSeed`).
 */
import {
  addDays,
  type Agent,
  type AgentId,
  agentIdempotencyScope,
  gameMinutes,
  type PlanMade,
  tickConversationId,
  type World,
  type WorldId,
} from "../../domain/mod.ts";
import { withAgents } from "../transaction.ts";
import {
  awakeAround,
  conversationKey,
  decideReaction,
  planKey,
  type ReactionResult,
  readConversationState,
  stateKey,
  summaryKey,
} from "../cognition/mod.ts";
import type { Deps, DocumentKey } from "../../ports/mod.ts";
import { TICK_RECORD_TTL_MS, type TickFrame } from "../engine/mod.ts";
import type { Sighting } from "./perception.ts";
import type { ViewBasis } from "./tick_views.ts";

/** For worlds stored before `talkCooldownMinutes` existed. */
const DEFAULT_TALK_COOLDOWN = 120;

/** A decision about a newly seen agent; `error` when it failed. */
export interface PairedReaction {
  result?: ReactionResult & { plans: PlanMade[] };
  error?: unknown;
}

/** Agent ids in code-unit order, the order every per-tick choice follows. */
export function byAgent(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Picks who decides about whom this tick, in agent-id order so the choice never depends on which
 * step runs first: each agent without an object trigger (`objectTriggered`) takes the first
 * newcomer in its view who is not already taken, and neither talked within the world's
 * `talkCooldownMinutes`. Both are then taken: nobody is in two decisions, and two agents who see
 * each other arrive decide once.
 * @returns each decider's choice (the sighting it decides about, to be its `trigger`), by id.
 */
export async function pairNewcomers(
  deps: Pick<Deps, "storage">,
  frame: TickFrame<World>,
  { agents, objectTriggered, newcomers }: {
    agents: readonly Agent[];
    objectTriggered: ReadonlySet<string>;
    newcomers: ReadonlyMap<string, Sighting[]>;
  },
): Promise<Map<string, Sighting>> {
  const taken = new Set<string>();
  // Everyone who may be asked about, read at once (one round trip on the hosted backend).
  const asked = new Set<AgentId>();
  for (const agent of agents) {
    const seenNow = newcomers.get(agent.id) ?? [];
    if (objectTriggered.has(agent.id) || seenNow.length === 0) continue;
    asked.add(agent.id);
    for (const sighting of seenNow) asked.add(sighting.observed!.agentId as AgentId);
  }
  const lately = new Map(
    await Promise.all(
      [...asked].map(async (id) => [id as string, await talkedLately(deps, frame, id)] as const),
    ),
  );
  const talked = (id: string) => lately.get(id) ?? false;
  const pairs = new Map<string, Sighting>();
  for (const agent of [...agents].sort((a, b) => byAgent(a.id, b.id))) {
    if (objectTriggered.has(agent.id) || taken.has(agent.id)) continue;
    const seenNow = newcomers.get(agent.id) ?? [];
    if (seenNow.length === 0 || talked(agent.id)) continue;
    for (const sighting of seenNow) {
      const other = sighting.observed!.agentId;
      if (taken.has(other) || talked(other)) continue;
      pairs.set(agent.id, sighting);
      taken.add(agent.id);
      taken.add(other);
      break;
    }
  }
  return pairs;
}

/**
 * The pair decisions that steps of one invocation (a tick in process, or one message of it on
 * the queue) started or read back, by deciding agent: each made once, the other step of the
 * pair awaits the same promise instead of reading it from the store again.
 */
export class PairDecisions {
  readonly #started = new Map<string, Promise<PairedReaction>>();

  /** The decision of `decider`'s pair: the one already started, or `start()`'s. */
  once(decider: string, start: () => Promise<PairedReaction>): Promise<PairedReaction> {
    let decision = this.#started.get(decider);
    if (decision === undefined) {
      decision = start();
      this.#started.set(decider, decision);
    }
    return decision;
  }
}

/** A pair's decision as stored for its tick (a failure is not stored: see `pairDecision`). */
interface StoredDecision {
  result: PairedReaction["result"];
}

/** A tick's pair decision is kept with the deciding agent's claims, so it goes with the agent. */
function decisionKey(tickId: string): string {
  return `tick:${tickId}:pair`;
}

/**
 * The decision (and the conversation that follows) of the pair `agentId` is in this tick, as
 * its deciding agent or as the newcomer that agent saw; undefined when it is in none. The first
 * step of either agent makes it, before anything else of that step, and the other step awaits
 * it (`decisions` holds what this invocation started): so on the queue it runs inside the
 * pair's own message, and in process before both steps, as before. A pair touches only its two
 * agents, so the outcome does not depend on how the steps of other agents interleave.
 *
 * Made once per tick: the result is stored under (deciding agent, tick id) and a retried step
 * reads it back instead of holding the conversation again. The record expires with the tick's
 * other working records ({@linkcode TICK_RECORD_TTL_MS}). A failure is not stored: it fails the
 * decider's step (the other's goes on), which is retried and reported as `agent_error` when its
 * tries run out. A retry, like a step stopped between the conversation and that write, decides
 * again with the conversation id derived from the tick and the decider: when a try stored the
 * transcript, it finds it and finishes it (the memories, counters and states it lacks, both
 * re-plan) instead of holding a second conversation, so a stored conversation is never left
 * behind a stored failure.
 */
export function pairDecision(
  deps: Deps,
  { frame, shared }: {
    frame: TickFrame<World>;
    shared: Talks & { decisions: PairDecisions } & Pick<ViewBasis, "roster" | "env">;
  },
  agentId: string,
): Promise<PairedReaction> | undefined {
  const pair = talkOf(shared, agentId);
  if (pair === undefined) return undefined;
  return shared.decisions.once(pair.decider, () =>
    decideOnce(deps, frame, {
      decider: pair.decider as AgentId,
      observed: pair.observed,
      joining: pair.joining as AgentId[],
      listeners: listenersAtStart(shared, [
        pair.decider,
        pair.observed.observed!.agentId,
        ...pair.joining,
      ]),
    }));
}

/**
 * Who may overhear the talk of `talkers` (its decider first): the awake agents where the
 * decider stood as the tick began, from the plan's roster, so every try and every concurrency
 * chooses the same. What they overhear is written when the tick closes (`agent_step.ts`).
 */
function listenersAtStart(
  shared: Pick<ViewBasis, "roster" | "env">,
  talkers: readonly string[],
): AgentId[] {
  const where = shared.roster.find((a) => a.id === talkers[0])?.location;
  if (where === null || where === undefined) return [];
  return awakeAround(shared.roster, { where, env: shared.env, exclude: talkers });
}

/** Who talks to whom this tick: the pairs, and who joins each (`_talk_circles.ts`). */
export interface Talks {
  pairs: ReadonlyMap<string, Sighting>;
  circles?: ReadonlyMap<string, readonly string[]>;
}

/**
 * The conversation `agentId` may be in this tick, as a pair's decider, its newcomer, or one who
 * joins them: the decider, its sighting, and who joins; undefined when in none.
 */
export function talkOf(
  talks: Talks,
  agentId: string,
): { decider: string; observed: Sighting; joining: readonly string[] } | undefined {
  const pair = pairOf(talks.pairs, agentId);
  if (pair !== undefined) return { ...pair, joining: talks.circles?.get(pair.decider) ?? [] };
  for (const [decider, joining] of talks.circles ?? []) {
    const observed = talks.pairs.get(decider);
    if (observed !== undefined && joining.includes(agentId)) return { decider, observed, joining };
  }
  return undefined;
}

/**
 * The pair `agentId` is in: its deciding agent and the sighting that agent decides about.
 * `pairs` holds each decider's sighting, by the decider's id (`pairNewcomers`).
 */
export function pairOf(
  pairs: ReadonlyMap<string, Sighting>,
  agentId: string,
): { decider: string; observed: Sighting } | undefined {
  for (const [decider, observed] of pairs) {
    if (decider === agentId || observed.observed?.agentId === agentId) {
      return { decider, observed };
    }
  }
  return undefined;
}

async function decideOnce(
  deps: Deps,
  frame: TickFrame<World>,
  { decider, observed, joining, listeners }: {
    decider: AgentId;
    observed: Sighting;
    joining: AgentId[];
    listeners: AgentId[];
  },
): Promise<PairedReaction> {
  const { world } = frame;
  const scope = agentIdempotencyScope({ worldId: world.id as WorldId, agentId: decider });
  const key = decisionKey(frame.tickId);
  const other = observed.observed!.agentId as AgentId;
  const everyone = [decider, other, ...joining];
  const scopes = everyone.map((agentId) => ({ worldId: world.id as WorldId, agentId }));
  let result: PairedReaction["result"];
  try {
    // One transaction over both agents: their leases, what the conversation reads of both and
    // the stored decision in its begin round trip; what it writes in one commit.
    const decided = await withAgents(deps, {
      scopes,
      world,
      documents: pairDocuments(frame, everyone),
      reads: [{ claim: { scope, key } }],
    }, async (tx) => {
      const stored = await tx.storage.idempotency.get<StoredDecision>(scope, key);
      if (stored !== null) return stored;
      return {
        result: await decideReaction(deps, tx, {
          at: frame.to,
          observations: [observed.text],
          observed: observed.observed!,
          conversationId: tickConversationId(frame.tickId, decider),
          listeners,
        }),
        fresh: true,
      };
    });
    if (!("fresh" in decided)) return { result: decided.result };
    result = decided.result;
  } catch (error) {
    return { error };
  }
  const claim = await deps.storage.idempotency.claim(scope, key, {
    value: { result },
    ttlMs: TICK_RECORD_TTL_MS,
  });
  return { result: claim.created ? result : claim.value.result };
}

/** The documents the pair's conversation reads of both agents as it goes, besides the agents. */
function pairDocuments(frame: TickFrame<World>, agents: readonly AgentId[]): DocumentKey[] {
  const { world } = frame;
  const date = frame.to.slice(0, 10);
  const keys = agents.flatMap((agentId) => [
    stateKey(world, agentId),
    summaryKey({ worldId: world.id, id: agentId }),
    planKey(world.id, agentId, date),
    planKey(world.id, agentId, addDays(date, -1)),
  ]);
  // The conversation of this tick, if an earlier attempt of the step started it.
  return [...keys, conversationKey(world.id, tickConversationId(frame.tickId, agents[0]))];
}

/**
 * Whether the agent talked with anyone within the world's `talkCooldownMinutes` (or is still
 * talking): then no conversation starts and no model call decides about one. The pair cooldown
 * of the reaction vetoes stops two agents talking again; this one stops an agent from talking
 * to everyone who walks by, the largest cost of a busy town (BENCHMARKS.md).
 */
export async function talkedLately(
  deps: Pick<Deps, "storage">,
  frame: TickFrame<World>,
  agentId: AgentId,
): Promise<boolean> {
  const cooldown = frame.world.settings.talkCooldownMinutes ?? DEFAULT_TALK_COOLDOWN;
  if (cooldown <= 0) return false;
  const state = await readConversationState(deps, frame.world, agentId);
  return state !== null && gameMinutes(frame.to) - gameMinutes(state.until) < cooldown;
}
