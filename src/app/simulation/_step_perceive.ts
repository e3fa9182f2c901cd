/**
 * @module Private to the agent step: its perceive phase, and what the step's phases collect
 * (the step's summary, events, usage and plans made).
 */
import type {
  Agent,
  AgentId,
  AgentScope,
  PlanMade,
  ScoredObservation,
  Usage,
  World,
  WorldId,
} from "../../domain/mod.ts";
import type { AgentTransaction } from "../agents/mod.ts";
import type { Deps, NewEvent } from "../../ports/mod.ts";
import type { DeclaredRead, TickFrame } from "../engine/mod.ts";
import { perceiveHeld, perceiveReads } from "../memory/mod.ts";
import type { ObjectLeave, ObjectUse } from "./object_states.ts";
import type { AgentStepSummary } from "./step_summary.ts";
import { saveSeen, type Seen } from "./perception.ts";
import { textKey, type TickShared } from "./tick_prepare.ts";

/** Most texts listed in one `perceived` or `reflection` event. */
export const EVENT_LIST_MAX = 20;

const EVENT_TEXT_MAX = 300;

/** What a step's phases produce, put together by the step. */
export interface StepParts {
  summary: Partial<AgentStepSummary>;
  events: NewEvent[];
  usages: Usage[];
  plans: PlanMade[];
  /** Objects the agent started using, and left: the tick's `finish` changes their states. */
  uses: ObjectUse[];
  leaves: ObjectLeave[];
}

/** The parts of nothing done yet. */
export function noParts(): StepParts {
  return { summary: {}, events: [], usages: [], plans: [], uses: [], leaves: [] };
}

/**
 * Stores what is new in the agent's area as observations (event ids make a repeated tick
 * harmless) and saves its last look; returns the agent as perceiving left it (known areas,
 * counters) with what it did.
 */
export async function perceiveNew(
  deps: Pick<Deps, "model" | "embedder" | "ids">,
  tx: AgentTransaction,
  { frame, shared }: { frame: TickFrame<World>; shared: TickShared },
): Promise<{ agent: Agent; parts: StepParts }> {
  const { agent } = tx;
  const parts = noParts();
  const view = shared.views.get(agent.id);
  const { sightings, next } = view.perception;
  let perceived: Agent = agent;
  if (sightings.length > 0) {
    const { result, agent: after } = await perceiveHeld(
      deps,
      tx,
      observationsOf(frame, agent.id, shared),
    );
    perceived = after;
    const created = sightings.filter((_, i) => result.outcomes[i] === "created");
    parts.usages.push(result.usage);
    parts.summary.perceived = created.length;
    if (created.length > 0) {
      parts.events.push({
        type: "perceived",
        at: frame.to,
        agentId: agent.id,
        count: created.length,
        observations: created.slice(0, EVENT_LIST_MAX).map((s) => clip(s.text)),
      });
    }
  }
  if (!sameSeen(next, view.seen)) {
    await saveSeen(tx, { worldId: frame.world.id as WorldId, agentId: agent.id }, {
      seen: next,
      version: view.seenVersion,
    });
  }
  return { agent: perceived, parts };
}

/**
 * The reads perceiving the agent's sightings makes (none without sightings), declared for its
 * step's transaction to make with the agent's lease: the step knows them from the tick's view.
 */
export function stepPerceiveReads(
  frame: TickFrame<World>,
  agentId: string,
  shared: TickShared,
): DeclaredRead[] {
  if (shared.views.get(agentId).perception.sightings.length === 0) return [];
  const scope: AgentScope = { worldId: frame.world.id as WorldId, agentId: agentId as AgentId };
  return perceiveReads(frame.world, scope, observationsOf(frame, agentId, shared));
}

/** The agent's sightings as the observations it stores, scored by the tick. */
function observationsOf(
  frame: TickFrame<World>,
  agentId: string,
  shared: TickShared,
): ScoredObservation[] {
  return shared.views.get(agentId).perception.sightings.map((s) => ({
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
