/**
 * @module The behaviour of a world tick for agents: what the generic engine runs per tick
 * (SPEC §5–6). Before the steps, every agent's view of its area is worked out and all new
 * observations are scored in one call (and embedded in one); each agent then perceives → reacts
 * (talks, re-plans or carries on) → acts along its plan → reflects when due; after the steps,
 * the objects agents started using change state in one call.
 *
 * The engine holds a per-agent step lease around each step. The agent's own lock is taken by
 * the cognition functions themselves (perceive, planning, dialogue, reflection), so a step never
 * holds it while calling one of them.
 */
import { z } from "zod";
import { type Agent, listAgents, loadAgent } from "../agents/agent.ts";
import { currentAction } from "../cognition/planning.ts";
import { decideReaction, type ReactionResult } from "../cognition/reaction.ts";
import { reflectIfDue } from "../cognition/reflection.ts";
import type { Deps } from "../deps.ts";
import { ConflictError, ModelUnavailableError } from "../errors.ts";
import { AgentId, type AgentScope, type WorldId } from "../ids.ts";
import { isIdle } from "../memory/importance.ts";
import { perceiveScored } from "../memory/perceive.ts";
import { addUsage, emptyUsage, type Usage } from "../model/usage.ts";
import type { NewEvent } from "../ports/event_log.ts";
import { buildImportancePrompt } from "../prompts/importance.ts";
import {
  errorFields,
  type StepOutcome,
  type TickFrame,
  type TickSystem,
} from "../engine/tick_engine.ts";
import { cached, loadCache, remember, saveCache } from "./_bounded_cache.ts";
import { type Environment, loadEnvironment, resolvePath } from "./environment.ts";
import {
  byAgent,
  decidePairs,
  type PairedReaction,
  pairNewcomers,
  tapPlans,
} from "./_talk_pairs.ts";
import {
  applyObjectStates,
  loadObjectOrigins,
  type ObjectLeave,
  type ObjectUse,
  setByAgent,
} from "./object_states.ts";
import {
  ASLEEP,
  loadSeen,
  perceiveArea,
  type Perception,
  saveSeen,
  type Seen,
  type Sighting,
} from "./perception.ts";
import type { World } from "./world.ts";

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

/** What one agent will do with what it sees this tick. */
interface AgentView {
  perception: Perception;
  /** What it saw at its last look, and that document's version. */
  seen: Seen;
  seenVersion: number | undefined;
  /** What the agent decides about: a newly seen agent, or objects whose state someone changed. */
  trigger?: { observed: Sighting } | { objects: Sighting[] };
}

/** State shared by the phases of one tick. */
interface TickShared {
  env: Environment | null;
  views: Map<string, AgentView>;
  /** Importance by observation text (normalised), scored once for every agent. */
  scores: Map<string, number>;
  /** Decisions (and conversations) about a newly seen agent, by the deciding agent's id. */
  paired: Map<string, PairedReaction>;
  uses: ObjectUse[];
  leaves: ObjectLeave[];
}

/** Options for {@linkcode agentTickSystem}. */
export interface AgentTickOptions {
  /** How long a step waits for its agent's lock (a conversation holds it). @default 120000 */
  lockWaitMs?: number;
}

/** Most observation texts listed in one `perceived` event. */
const EVENT_LIST_MAX = 20;
const EVENT_TEXT_MAX = 300;

/**
 * The agent behaviour of a world tick, for {@linkcode runTick}. Model calls per tick: at most
 * one importance call for every agent's new observations together (idle texts and texts scored
 * in earlier ticks cost none), one object-state call for every object put to a new use (known
 * object and action pairs cost none), and per agent only what its plan, reaction and reflection
 * need. A reaction is decided only about an agent that just came into view (at most one per
 * agent and tick, one per pair, none when either talked within the world's
 * `talkCooldownMinutes`) or about objects whose state someone other than an agent changed, and
 * never while the observer sleeps.
 * @see SPEC §5–6, §9 (cost).
 */
export function agentTickSystem(
  deps: Deps,
  options: AgentTickOptions = {},
): TickSystem<Agent, TickShared, AgentStepSummary> {
  const lockWaitMs = options.lockWaitMs ?? 120_000;
  return {
    units: (frame) => listAgents(deps, frame.world.id as WorldId),
    unitKey: (agent) => agent.id,
    prepare: (frame, agents) => prepare(deps, frame, agents),
    step: (frame, agent, shared) => step(deps, frame, agent, shared, lockWaitMs),
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
    finish: (frame, shared) =>
      applyObjectStates(
        deps,
        frame.world.id as WorldId,
        frame.to,
        [...shared.uses].sort((a, b) => byAgent(a.agentId, b.agentId)),
        [...shared.leaves].sort((a, b) => byAgent(a.agentId, b.agentId)),
      ),
  };
}

async function prepare(
  deps: Deps,
  frame: TickFrame,
  agents: readonly Agent[],
): Promise<{ shared: TickShared; events: NewEvent[]; usage: Usage }> {
  const worldId = frame.world.id as WorldId;
  const [env, seen, origins] = await Promise.all([
    loadEnvironment(deps, worldId),
    loadSeen(deps, worldId),
    loadObjectOrigins(deps, worldId),
  ]);
  const views = new Map<string, AgentView>();
  const newcomers = new Map<string, Sighting[]>();
  for (const agent of agents) {
    const before = seen.get(agent.id);
    const seenBefore = before?.seen ?? {};
    const perception = perceiveArea(agent, agents, env, seenBefore);
    const external = (s: Sighting) =>
      s.observed === undefined && s.changed && !setByAgent(origins, s.location, s.state);
    const changedObjects = perception.sightings.filter(external);
    newcomers.set(
      agent.id,
      perception.sightings.filter((s) =>
        s.observed !== undefined && !s.changed && !ASLEEP.test(s.observed.status)
      ),
    );
    views.set(agent.id, {
      perception,
      seen: seenBefore,
      seenVersion: before?.version,
      trigger: changedObjects.length > 0 ? { objects: changedObjects } : undefined,
    });
  }
  const pairs = await pairNewcomers(deps, frame, agents, views, newcomers);
  const texts = [...views.values()].flatMap((v) => v.perception.sightings.map((s) => s.text));
  const scored = await scoreForAll(deps, frame.world, texts);
  const embedded = await embedForAll(deps, frame.world, texts);
  const paired = await decidePairs(deps, frame, pairs);
  return {
    shared: { env, views, scores: scored.scores, paired, uses: [], leaves: [] },
    events: [],
    usage: addUsage(scored.usage, embedded),
  };
}

/**
 * Embeds every distinct observation text of the tick in one call, so each agent's perceive
 * finds its vectors in the embedder's cache (the services wrap the embedder in one) instead of
 * making a call per agent. A failure is left to each perceive, which embeds what it needs.
 */
async function embedForAll(
  deps: Pick<Deps, "embedder">,
  world: World,
  texts: readonly string[],
): Promise<Usage> {
  const distinct = [...new Set(texts)];
  if (distinct.length === 0) return emptyUsage();
  try {
    return (await deps.embedder.embed(distinct, { worldId: world.id, operation: "embedding" }))
      .usage;
  } catch (err) {
    if (err instanceof ModelUnavailableError) return emptyUsage();
    throw err;
  }
}

/** Observation texts compared case- and space-insensitively (as perceive's dedupe does). */
function textKey(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, " ").slice(0, 500);
}

/** Importance scores kept per world, by observation text; the oldest go first. */
const IMPORTANCE_CACHE_SIZE = 1000;

/**
 * Scores every distinct observation text of the tick in one fast-model call, as it would matter
 * to a resident of the world: idle texts get 1 and texts scored in earlier ticks their cached
 * score, without a call. When the model is unavailable the scores stay unknown and each agent's
 * perceive scores its own texts (or marks them pending).
 */
async function scoreForAll(
  deps: Pick<Deps, "model" | "storage">,
  world: World,
  texts: readonly string[],
): Promise<{ scores: Map<string, number>; usage: Usage }> {
  const scores = new Map<string, number>();
  if (texts.length === 0) return { scores, usage: emptyUsage() };
  const cache = await loadCache<number>(deps, {
    collection: "importance",
    scope: world.id,
    id: "scores",
  });
  const todo = new Map<string, string>();
  for (const text of texts) {
    const key = textKey(text);
    if (scores.has(key) || todo.has(key)) continue;
    const known = isIdle(text) ? 1 : cached(cache, key);
    if (known !== undefined) scores.set(key, known);
    else todo.set(key, text);
  }
  if (todo.size === 0) return { scores, usage: emptyUsage() };
  try {
    const completion = await deps.model.complete(
      buildImportancePrompt({
        agentName: `a resident of ${world.name}`,
        observations: [...todo.values()],
      }),
      { worldId: world.id, operation: "importance", seed: world.settings.seed },
    );
    [...todo.keys()].forEach((key, i) => {
      scores.set(key, completion.value.scores[i]);
      remember(cache, key, completion.value.scores[i], IMPORTANCE_CACHE_SIZE);
    });
    await saveCache(deps, cache);
    return { scores, usage: completion.usage };
  } catch (err) {
    if (err instanceof ModelUnavailableError) return { scores, usage: emptyUsage() };
    throw err;
  }
}

async function step(
  deps: Deps,
  frame: TickFrame,
  agent: Agent,
  shared: TickShared,
  lockWaitMs: number,
): Promise<StepOutcome<AgentStepSummary>> {
  const { world, to } = frame;
  const scope: AgentScope = { worldId: world.id as WorldId, agentId: agent.id };
  const tap = tapPlans(deps.model, world.settings.seed);
  const d: Deps = { ...deps, model: tap.model };
  const view = shared.views.get(agent.id)!;
  const paired = shared.paired.get(agent.id);
  if (paired) tap.plans.push(...paired.plans);
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
    // 1. Perceive what is new in its area (event ids make a repeated tick harmless).
    const { sightings, next } = view.perception;
    if (sightings.length > 0) {
      const result = await perceiveScored(
        d,
        world,
        agent.id,
        sightings.map((s) => ({
          text: s.text,
          eventId: `${frame.tickId}:${s.subject}`,
          at: to,
          location: s.location,
          importance: shared.scores.get(textKey(s.text)),
        })),
        { lockWaitMs },
      );
      usages.push(result.usage);
      const created = sightings.filter((_, i) => result.outcomes[i] === "created");
      summary.perceived = created.length;
      if (created.length > 0) {
        events.push({
          type: "perceived",
          at: to,
          agentId: agent.id,
          count: created.length,
          observations: created.slice(0, EVENT_LIST_MAX).map((s) => clip(s.text)),
        });
      }
    }
    if (!sameSeen(next, view.seen)) {
      await saveSeen(d, scope.worldId, agent.id, next, view.seenVersion);
    }

    // 2. React to a newcomer or to objects someone changed; at most one conversation per agent.
    const reaction = await react(d, frame, agent, view, shared);
    if (reaction) {
      usages.push(reaction.usage);
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
    const fresh = (await loadAgent(d, scope)).value;
    const acted = await currentAction(d, world, fresh, to);
    usages.push(acted.usage);
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

    // 4. Reflect when the importance since the last reflection reached the threshold.
    const latest = (await loadAgent(d, scope)).value;
    try {
      const reflected = await reflectIfDue(d, world, latest, to);
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
  } catch (err) {
    failed = true;
    summary.error = errorFields(err).error;
    events.push(agentError(frame, agent.id, err));
  }
  events.push(...tap.plans.map((p): NewEvent => ({ type: "plan", at: to, ...p })));
  return { summary, events, usage: addUsage(...usages), failed };
}

/**
 * The decision about the view's trigger, if any: about objects it is made now; about a newcomer
 * it was made before the steps. Null when there is nothing to decide.
 */
async function react(
  deps: Deps,
  frame: TickFrame,
  agent: Agent,
  view: AgentView,
  shared: TickShared,
): Promise<ReactionResult | null> {
  const trigger = view.trigger;
  if (!trigger) return null;
  if ("objects" in trigger) {
    const scope: AgentScope = { worldId: frame.world.id as WorldId, agentId: agent.id };
    const fresh = (await loadAgent(deps, scope)).value;
    return await decideReaction(
      deps,
      frame.world,
      fresh,
      trigger.objects.map((s) => s.text),
      frame.to,
    );
  }
  const paired = shared.paired.get(agent.id);
  if (paired?.error !== undefined) throw paired.error;
  return paired?.result ?? null;
}

function sameSeen(a: Seen, b: Seen): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

function agentError(frame: TickFrame, agentId: string, err: unknown): NewEvent {
  return { type: "agent_error", at: frame.to, agentId, ...errorFields(err) };
}

function clip(text: string): string {
  return text.length <= EVENT_TEXT_MAX ? text : `${text.slice(0, EVENT_TEXT_MAX - 1)}…`;
}
