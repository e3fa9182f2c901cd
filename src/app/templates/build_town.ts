/**
 * @module Building a template's town from its description: the world, its environment and every
 * agent with seed memories, which costs each agent an importance call and an embedding call.
 * `deno task templates:build` runs it (with the offline model) to make the archive a template
 * world is loaded from; see `create_from_template.ts`.
 */
import { createAgent } from "../lifecycle/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { mapBounded } from "../engine/mod.ts";
import type { CreateWorldInput, World, WorldId } from "../../domain/mod.ts";
import { createWorld, replaceEnvironment } from "../world/mod.ts";
import { offeredTown, type TownCatalog } from "./town.ts";

/** Options for {@linkcode buildTown}. */
export interface BuildTownOptions {
  /** The towns on offer; `input.template` names one. */
  towns: TownCatalog;
  /**
   * Agents created at once (each costs one importance call and one embedding call).
   * @default 5
   */
  concurrency?: number;
}

/**
 * Creates the world of `input.template` from its description in `options.towns`: the clock starts at `startTime`
 * or else at the template's own start, then the environment and all agents (with their seed
 * memories) are created, a few agents at a time. Without a template it creates a plain world,
 * as {@linkcode createWorld} does (and as `createWorldFromTemplate` does).
 *
 * Not atomic: when creating an agent fails, the world is left with the agents made so far and
 * the error is thrown.
 * @throws `invalid_request` (no such town on offer), `conflict` (the id is taken), `model_*` and
 * `store_unavailable` from creating agents.
 */
export async function buildTown(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  input: CreateWorldInput,
  options: BuildTownOptions,
): Promise<World> {
  if (input.template === undefined) return await createWorld(deps, input);
  const town = offeredTown(options.towns, input.template).town();
  const world = await createWorld(deps, { ...input, startTime: input.startTime ?? town.startTime });
  const worldId = world.id as WorldId;
  await replaceEnvironment(deps, worldId, town.environment);
  await mapBounded(
    town.agents,
    Math.max(1, Math.floor(options.concurrency ?? 5)),
    (agent) => createAgent(deps, worldId, agent),
  );
  return world;
}
