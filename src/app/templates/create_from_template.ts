/**
 * @module Creating a world as `POST /v1/worlds` asks: empty, or a whole town from a template,
 * loaded from the town's archive (made by `deno task templates:build`), so creating it costs no
 * model call. The archive's seed importances are the offline model's: a world served by another
 * model gets them as provisional scores its own model replaces on each agent's first perceive.
 */
import { importWorld } from "../archive/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { type CreateWorldInput, type GameTime, type World, worldTaken } from "../../domain/mod.ts";
import { createWorld, newWorld, worldKey } from "../world/mod.ts";
import { offeredTown, type TownCatalog } from "./town.ts";

/**
 * Creates a world. Without `template` that is all; with one, the template's town in `towns` is
 * imported from its archive under the new world's id, name, clock and settings: the clock starts
 * at `startTime` or else at the template's own start (the town's records are moved to that start).
 * No model call when the store's embedder made the archive (the local one); with another, each
 * agent's seed memories are embedded again (one embedding call per agent). When the server's
 * model is not the offline one that scored the archive, every seed keeps its archived importance
 * only as a provisional score, marked `importancePending` and listed in its agent's
 * `pendingImportance`: the agent's first perceive scores them with the world's model, in the
 * importance call perceiving makes anyway (as for a memory stored while the model was down), so
 * no world inherits the offline model's judgement. All or nothing, like any import.
 * @throws `invalid_request` (no such town in `towns`), `conflict` (the id is taken), `model_*`
 * (embedding again), `store_unavailable`.
 * @see Generative Agents §5; README, "Quick start" (`template`)
 */
export async function createWorldFromTemplate(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids" | "sleep">,
  input: CreateWorldInput,
  towns: TownCatalog,
): Promise<World> {
  if (input.template === undefined) return await createWorld(deps, input);
  const offered = offeredTown(towns, input.template);
  const town = offered.town();
  const world = newWorld(deps, { ...input, startTime: input.startTime ?? town.startTime });
  if (await deps.storage.documents.get(worldKey(world.id))) throw worldTaken(world.id);
  const lines = deps.model.info.mode === "offline"
    ? offered.archive
    : pendingSeeds(offered.archive);
  const imported = await importWorld(
    deps,
    retimed(lines, town.startTime, world),
    { id: world.id, reembed: true },
  );
  return imported.world as World;
}

/**
 * The archive's lines with every seed memory's importance marked pending (its score kept as the
 * provisional one) and listed in its agent's `pendingImportance`, for a world whose model did
 * not score them.
 */
function pendingSeeds(lines: readonly string[]): string[] {
  const seeds = new Map<string, string[]>();
  const parsed = lines.map((line) => {
    if (!line.startsWith('{"type":"memory"')) return line;
    const record = JSON.parse(line);
    const memory = record.memory as { id: string; agentId: string; kind: string };
    if (memory.kind !== "seed") return line;
    seeds.set(memory.agentId, [...(seeds.get(memory.agentId) ?? []), memory.id]);
    return { ...record, memory: { ...memory, importancePending: true } };
  });
  return parsed.map((line) => {
    if (typeof line !== "string") return JSON.stringify(line);
    if (!line.startsWith('{"type":"document","collection":"agents"')) return line;
    const record = JSON.parse(line);
    const agent = record.value as { id: string; pendingImportance: string[] };
    const pending = [...agent.pendingImportance, ...(seeds.get(agent.id) ?? [])];
    return JSON.stringify({ ...record, value: { ...agent, pendingImportance: pending } });
  });
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
