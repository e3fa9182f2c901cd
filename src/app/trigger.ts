/**
 * @module Triggers as the API offers them: a game event delivered as a memory (provenance
 * `trigger:<name>`) to the agents it concerns, each in its own transaction; an important one
 * goes through the reaction decision, which may re-plan the day (Generative Agents §4.3).
 */
import {
  addUsage,
  type AgentId,
  assertNotTooFarAhead,
  NotFoundError,
  REPLAN_IMPORTANCE,
  SimulacraError,
  type TriggerInput,
  type TriggerResult,
  triggerText,
  type Usage,
  type WorldId,
} from "../domain/mod.ts";
import type { Deps } from "../ports/mod.ts";
import { listAgents } from "./agents/mod.ts";
import { perceiveHeld, perceiveReads } from "./memory/mod.ts";
import { getWorld } from "./world/mod.ts";
import { withAgent } from "./transaction.ts";
import { react } from "./react.ts";

/**
 * Delivers a trigger to `input.agents` (default: every agent of the world), in order. Each
 * stores it as an observation with provenance `trigger:<name>` (its params in words after the
 * description), idempotent by `eventId` per agent: sent again, nothing is stored twice and
 * nobody reacts again. An agent that newly stores it with importance of at least
 * `REPLAN_IMPORTANCE` decides how to react, as to something it observed; "react" re-plans the
 * rest of its day. A failed decision leaves the memory stored (`reactionError`).
 *
 * Calls per agent: 1 embedding call, 1 importance call unless `importance` is given, and for an
 * important trigger the reaction decision (1 call) and a re-plan when it reacts.
 * @throws `world_not_found`, `agent_not_found` (`details.index`), `unprocessable` (too long,
 * or dated too far ahead), `model_*` (embedding failed: that agent and those after it got
 * nothing), `conflict`, `store_unavailable`.
 */
export async function deliverTrigger(
  deps: Deps,
  worldId: WorldId,
  input: TriggerInput,
): Promise<TriggerResult> {
  const world = await getWorld(deps, worldId);
  const text = triggerText(input);
  const known = new Set<string>((await listAgents(deps, worldId)).map((a) => a.id));
  const targets = input.agents ?? [...known] as AgentId[];
  targets.forEach((agentId, index) => {
    if (!known.has(agentId)) {
      throw new NotFoundError(
        "agent_not_found",
        `Cannot deliver the trigger to agent "${agentId}": world "${worldId}" has no such agent`,
        { details: { index, agentId } },
      );
    }
  });
  const provenance = `trigger:${input.name}` as const;
  const observation = {
    text,
    at: input.at ?? world.clock.now,
    provenance,
    ...(input.eventId === undefined ? {} : { eventId: `trigger:${input.eventId}` }),
    ...(input.importance === undefined ? {} : { importance: input.importance }),
  };
  assertNotTooFarAhead(world, [observation]);
  const usages: Usage[] = [];
  const deliveries: TriggerResult["deliveries"] = [];
  for (const agentId of targets) {
    const scope = { worldId, agentId };
    const { result } = await withAgent(
      deps,
      { scope, world, reads: perceiveReads(world, scope, [observation]) },
      (tx) => perceiveHeld(deps, tx, [observation]),
    );
    usages.push(result.usage);
    const memory = result.memories[0];
    const outcome = result.outcomes[0];
    const delivery: TriggerResult["deliveries"][number] = {
      agentId,
      memoryId: memory.id,
      outcome,
      importance: memory.importance,
      reaction: null,
    };
    if (outcome === "created" && memory.importance >= REPLAN_IMPORTANCE) {
      try {
        const reacted = await react(deps, scope, { observations: [text], at: observation.at });
        usages.push(reacted.usage);
        delivery.reaction = reacted.decision;
      } catch (err) {
        if (!(err instanceof SimulacraError)) throw err;
        delivery.reactionError = err.code;
      }
    }
    deliveries.push(delivery);
  }
  return { name: input.name, provenance, deliveries, usage: addUsage(...usages) };
}
