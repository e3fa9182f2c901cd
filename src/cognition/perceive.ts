/**
 * @module Perceive as the API offers it: store the observations (memory), then reflect when that
 * made a reflection due and the world's `autoReflect` is on (Generative Agents §4.2). Memory only reports
 * `reflectionDue`; deciding to reflect is cognition's job.
 */
import type { Deps } from "../deps.ts";
import type { AgentId, WorldId } from "../ids.ts";
import { addUsage } from "../model/usage.ts";
import {
  type PerceiveInput,
  perceiveObservations,
  type PerceiveResult,
} from "../memory/perceive.ts";
import { reflectAfterPerceive } from "./reflection.ts";

/**
 * Stores observations as memories of one agent (see {@linkcode perceiveObservations}) and, when
 * that makes a reflection due and `autoReflect` is on, reflects right after at the latest
 * observation's time. The counter fields still describe the state the perceive left.
 *
 * @throws `world_not_found`, `agent_not_found`, `model_*` (embedding failed: nothing stored),
 * `store_unavailable`, `conflict` (agent busy too long).
 */
export async function perceive(
  deps: Deps,
  worldId: WorldId,
  agentId: AgentId,
  input: PerceiveInput,
): Promise<PerceiveResult> {
  const scope = { worldId, agentId };
  const { result, world, at } = await perceiveObservations(deps, scope, input);
  // Reflect after the perceive released the agent's lock: reflection takes it again.
  const auto = result.reflectionDue ? await reflectAfterPerceive(deps, world, scope, at) : null;
  if (auto === null) return { ...result, reflections: [] };
  return { ...result, reflections: auto.reflections, usage: addUsage(result.usage, auto.usage) };
}
