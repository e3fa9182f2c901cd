/**
 * @module Private to the agent step: its perceive phase, and what the step's phases collect
 * (the step's summary, events, usage and plans made).
 */
import type { Agent } from "../agents/agent.ts";
import type { PlanMade } from "../cognition/plan.ts";
import type { Deps } from "../deps.ts";
import type { TickFrame } from "../engine/tick_engine.ts";
import type { WorldId } from "../ids.ts";
import { perceiveScored } from "../memory/perceive.ts";
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
  lockWaitMs: number,
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
    await saveSeen(deps, { worldId: frame.world.id as WorldId, agentId: agent.id }, {
      seen: next,
      version: view.seenVersion,
    });
  }
}

/** `text` cut to the length an event keeps. */
export function clip(text: string): string {
  return text.length <= EVENT_TEXT_MAX ? text : `${text.slice(0, EVENT_TEXT_MAX - 1)}…`;
}

function sameSeen(a: Seen, b: Seen): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
