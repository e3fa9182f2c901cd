/**
 * @module The tick of a world whose daily model budget is spent: the clock moves, agents stay on
 * the plans they have (no perception, reactions, planning or reflection: all need the model),
 * and the first such tick of the UTC day logs one `budget.exhausted` event.
 */
import {
  type Agent,
  type AgentId,
  type AgentScope,
  emptyUsage,
  type SpentWorldBudget,
  type World,
  type WorldId,
} from "../../domain/mod.ts";
import { agentKey, listAgents, loadAgent } from "../agents/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import type { StepOutcome, TickSystem } from "../engine/mod.ts";
import { worldKey, worldTickClock } from "../world/mod.ts";
import type { AgentStepSummary } from "./step_summary.ts";

/** The tick system of a world whose budget is spent; no model call anywhere. */
export function coastTickSystem(
  deps: Deps,
  spent: SpentWorldBudget,
): TickSystem<Agent, null, AgentStepSummary, World> {
  return {
    clock: worldTickClock,
    units: (frame) => listAgents(deps, frame.world.id as WorldId),
    unitKey: (agent) => agent.id,
    // The agent is read with the step's lease, in one round trip, and the world with the close's.
    needs: (frame, key) => ({ leases: [], documents: [agentKey(scopeOf(frame.world, key))] }),
    unit: async (frame, key, storage) =>
      (await loadAgent(storage ? { storage } : deps, scopeOf(frame.world, key))).value,
    closeNeeds: (frame) => [worldKey(frame.world.id)],
    async prepare(frame) {
      // One event per world and day, however many ticks coast (the cron ticks every minute).
      const claim = await deps.storage.idempotency.claim(
        `budget-exhausted:${frame.world.id}`,
        spent.day,
        { value: frame.tickId },
      );
      const events = claim.created
        ? [{
          type: "budget.exhausted",
          at: frame.to,
          tickId: frame.tickId,
          day: spent.day,
          limit: spent.limit,
          budget: spent.budget,
        }]
        : [];
      return { events, usage: emptyUsage(), shared: null };
    },
    step: (_frame, agent) => Promise.resolve(coastedStep(agent)),
    failed: (_frame, agent) => ({
      summary: { agentId: agent.id, location: agent.location, action: agent.action, perceived: 0 },
      events: [],
      usage: emptyUsage(),
    }),
    finish: () => Promise.resolve({ events: [], usage: emptyUsage() }),
  };
}

/**
 * The step of an agent while a budget is spent (the world's, or that of the key that started
 * the tick): it keeps its place, action and plan; no model call.
 */
export function coastedStep(agent: Agent): StepOutcome<AgentStepSummary> {
  return {
    summary: {
      agentId: agent.id,
      location: agent.location,
      action: agent.action,
      perceived: 0,
      budgetExhausted: true,
    },
    events: [],
    usage: emptyUsage(),
  };
}

function scopeOf(world: World, key: string): AgentScope {
  return { worldId: world.id as WorldId, agentId: key as AgentId };
}
