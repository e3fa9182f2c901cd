/**
 * @module Perceive as the API offers it: store the observations (memory), then reflect when that
 * made a reflection due and the world's `autoReflect` is on (Generative Agents §4.2). Memory only
 * reports `reflectionDue`; deciding to reflect is this operation's job.
 */
import { autoReflectOn, reflectHeld } from "./cognition/mod.ts";
import type { Deps } from "../ports/mod.ts";
import {
  addUsage,
  type AgentScope,
  assertNotTooFarAhead,
  ConflictError,
  type GameTime,
  ModelUnavailableError,
  type PerceiveInput,
  type PerceiveResult,
  type World,
} from "../domain/mod.ts";
import { perceiveHeld, perceiveReads } from "./memory/mod.ts";
import { getWorld } from "./world/mod.ts";
import { withAgent } from "./transaction.ts";

/**
 * Stores observations as memories of one agent (see `perceiveHeld`) in one transaction, the
 * reads deciding needs made with the agent's lease; when that makes a reflection due and
 * `autoReflect` is on, reflects right after at the latest observation's time, in a transaction
 * of its own (the observations are stored either way). The counter fields still describe the
 * state the perceive left.
 *
 * @throws `world_not_found`, `agent_not_found`, `unprocessable` (an observation dated too far
 * ahead), `model_*` (embedding failed: nothing stored), `store_unavailable`, `conflict` (agent
 * busy too long).
 */
export async function perceive(
  deps: Deps,
  scope: AgentScope,
  input: PerceiveInput,
): Promise<PerceiveResult> {
  const world = await getWorld(deps, scope.worldId);
  const reads = perceiveReads(world, scope, input.observations);
  const { result } = await withAgent(deps, { scope, world, reads }, (tx) => {
    assertNotTooFarAhead(world, input.observations);
    return perceiveHeld(deps, tx, input.observations);
  });
  // Game times are fixed-width ISO strings, so the latest one sorts last.
  const at = input.observations.map((o) => o.at ?? world.clock.now).sort().at(-1)!;
  const auto = result.reflectionDue ? await reflectAfter(deps, { world, scope, at }) : null;
  if (auto === null) return { ...result, reflections: [] };
  return { ...result, reflections: auto.reflections, usage: addUsage(result.usage, auto.usage) };
}

/**
 * The automatic reflection of perceive. Null when `autoReflect` is off, the model failed or the
 * agent stayed busy: the reflection stays due, and the next perceive tries again.
 */
async function reflectAfter(
  deps: Deps,
  { world, scope, at }: { world: World; scope: AgentScope; at: GameTime },
) {
  if (!autoReflectOn(world)) return null;
  try {
    return await withAgent(
      deps,
      { scope, world },
      (tx) => reflectHeld(deps, tx, { force: false, at }),
    );
  } catch (err) {
    if (err instanceof ModelUnavailableError || err instanceof ConflictError) return null;
    throw err;
  }
}
