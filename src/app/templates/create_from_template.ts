/**
 * @module Creating a world as `POST /v1/worlds` asks: empty, or a whole town from a template,
 * loaded from the town's shipped archive (made by `deno task templates:build`), so creating it
 * costs no model call.
 */
import { importWorld } from "../archive/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import type { GameTime } from "../../domain/mod.ts";
import {
  type CreateWorldInput,
  type World,
  worldTaken,
  type WorldTemplate,
} from "../../domain/mod.ts";
import { createWorld, newWorld, worldKey } from "../world/mod.ts";
import { templateTown } from "./build_town.ts";
import { SMALLVILLE_ARCHIVE } from "./smallville_archive.gen.ts";

export { templateTown };

/** Each template's town as created from its description, as world archive lines. */
const ARCHIVES: Record<WorldTemplate, readonly string[]> = { smallville: SMALLVILLE_ARCHIVE };

/**
 * Creates a world. Without `template` that is all; with one, the template's town is imported
 * from its archive under the new world's id, name, clock and settings: the clock starts at
 * `startTime` or else at the template's own start (the town's records are moved to that start).
 * No model call when the store's embedder made the archive (the local one); with another, each
 * agent's seed memories are embedded again (one embedding call per agent). All or nothing, like
 * any import.
 * @throws `conflict` (the id is taken), `model_*` (embedding again), `store_unavailable`.
 * @see Generative Agents §5; README, "Quick start" (`template`)
 */
export async function createWorldFromTemplate(
  deps: Pick<Deps, "storage" | "embedder" | "ids" | "sleep">,
  input: CreateWorldInput,
): Promise<World> {
  if (input.template === undefined) return await createWorld(deps, input);
  const town = templateTown(input.template);
  const world = newWorld(deps, { ...input, startTime: input.startTime ?? town.startTime });
  if (await deps.storage.documents.get(worldKey(world.id))) throw worldTaken(world.id);
  const imported = await importWorld(
    deps,
    retimed(ARCHIVES[input.template], town.startTime, world),
    { id: world.id, reembed: true },
  );
  return imported.world as World;
}

/**
 * The archive's lines with `world` in place of the archived world line, and every game time
 * equal to the town's start (agents' and memories' creation and access times) moved to the
 * world's start.
 */
async function* retimed(
  lines: readonly string[],
  start: GameTime,
  world: World,
): AsyncGenerator<string> {
  const to = world.clock.now;
  for (const line of lines) {
    if (line.startsWith('{"type":"world"')) yield JSON.stringify({ type: "world", world });
    else if (to === start || line.startsWith('{"type":"header"')) yield line;
    else yield JSON.stringify(JSON.parse(line), (_, v) => (v === start ? to : v));
  }
}
