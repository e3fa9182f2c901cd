/** @module Creating a world as `POST /v1/worlds` asks: empty, or a whole town from a template. */
import { createAgent } from "../persona/create_agent.ts";
import type { Deps } from "../deps.ts";
import { mapBounded } from "../engine/pool.ts";
import type { WorldId } from "../ids.ts";
import { replaceEnvironment } from "../world/environment.ts";
import {
  createWorld,
  type CreateWorldInput,
  type World,
  type WorldTemplate,
} from "../world/world.ts";
import { smallvilleTown, type Town } from "./smallville.ts";

/** Options for {@linkcode createWorldFromTemplate}. */
export interface CreateFromTemplateOptions {
  /**
   * Agents created at once (each costs one importance call and one embedding call).
   * @default 5
   */
  concurrency?: number;
}

const TOWNS: Record<WorldTemplate, () => Town> = { smallville: smallvilleTown };

/** The town a template creates (its data, not stored anywhere). */
export function templateTown(template: WorldTemplate): Town {
  return TOWNS[template]();
}

/**
 * Creates a world. Without `template` that is all; with one, the world's clock starts at
 * `startTime` or else at the template's own start, and the template's environment and all its
 * agents (with their seed memories) are created too, a few agents at a time.
 *
 * Not atomic: when creating an agent fails, the world is left with the agents made so far and
 * the error is thrown; create the town again under another id.
 * @throws `conflict` (the id is taken), `model_*` and `store_unavailable` from creating agents.
 * @see SPEC §6; API.md "Worlds" (`template`)
 */
export async function createWorldFromTemplate(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  input: CreateWorldInput,
  options: CreateFromTemplateOptions = {},
): Promise<World> {
  if (input.template === undefined) return await createWorld(deps, input);
  const town = templateTown(input.template);
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
