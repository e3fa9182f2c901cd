/**
 * @module Private to the agent step: its perceive phase, and what the step's phases collect
 * (the step's summary, events, usage and plans made).
 */
import type { Agent } from "../agents/agent.ts";
import type { PlanMade } from "../cognition/plan.ts";
import type { Deps } from "../deps.ts";
import type { TickFrame } from "../engine/tick_engine.ts";
import type { AgentId, AgentScope, WorldId } from "../ids.ts";
import {
  type PerceiveReads,
  perceiveScored,
  readForPerceive,
  type ScoredObservation,
} from "../memory/perceive.ts";
import type { Storage } from "../ports/storage.ts";
import type { Usage } from "../model/usage.ts";
import type { NewEvent } from "../ports/event_log.ts";
import type { World } from "../world/world.ts";
import type { AgentStepSummary } from "./agent_step.ts";
import { saveSeen, type Seen } from "./perception.ts";
import { textKey, type TickShared } from "./tick_prepare.ts";

/** Most texts listed in one `perceived` or `reflection` event. */
export const EVENT_LIST_MAX = 20;

const EVENT_TEXT_MAX = 300;

/** What a step collects as it goes. */
export interface StepLog {
  summary: AgentStepSummary;
  events: NewEvent[];
  usages: Usage[];
  plans: PlanMade[];
}

/**
 * Stores what is new in the agent's area as observations (event ids make a repeated tick
 * harmless) and saves its last look.
 */
export async function perceiveNew(
  deps: Deps,
  frame: TickFrame<World>,
  agent: Agent,
  shared: TickShared,
  options: { lockWaitMs: number; read?: Promise<unknown> },
  { summary, events, usages }: StepLog,
): Promise<void> {
  const { world, to } = frame;
  const view = shared.views.get(agent.id)!;
  const { sightings, next } = view.perception;
  if (sightings.length > 0) {
    const result = await perceiveScored(
      deps,
      world,
      agent.id,
      observationsOf(frame, agent.id, shared),
      {
        lockWaitMs: options.lockWaitMs,
        // What `perceiveReads` started with the step's unit of work, for these observations.
        read: options.read as Promise<PerceiveReads> | undefined,
      },
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
    await saveSeen(deps, { worldId: frame.world.id as WorldId, agentId: agent.id }, {
      seen: next,
      version: view.seenVersion,
    });
  }
}

/**
 * The reads perceiving the agent's sightings makes (none without sightings), for its step's unit
 * of work to start with the agent's lock: the step knows them from the tick's view.
 */
export function perceiveReads(
  frame: TickFrame<World>,
  agentId: string,
  shared: TickShared,
): ((storage: Storage) => Promise<PerceiveReads>) | undefined {
  if (shared.views.get(agentId)!.perception.sightings.length === 0) return undefined;
  const scope: AgentScope = { worldId: frame.world.id as WorldId, agentId: agentId as AgentId };
  const observations = observationsOf(frame, agentId, shared);
  return (storage) => readForPerceive({ storage }, frame.world, scope, observations);
}

/** The agent's sightings as the observations it stores, scored by the tick. */
function observationsOf(
  frame: TickFrame<World>,
  agentId: string,
  shared: TickShared,
): ScoredObservation[] {
  return shared.views.get(agentId)!.perception.sightings.map((s) => ({
    text: s.text,
    eventId: `${frame.tickId}:${s.subject}`,
    at: frame.to,
    location: s.location,
    importance: shared.scores.get(textKey(s.text)),
  }));
}

/** `text` cut to the length an event keeps. */
export function clip(text: string): string {
  return text.length <= EVENT_TEXT_MAX ? text : `${text.slice(0, EVENT_TEXT_MAX - 1)}…`;
}

function sameSeen(a: Seen, b: Seen): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
