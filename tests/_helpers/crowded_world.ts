/**
 * @module A crowded world for the tick plan's size (issue 27, item 2): `agents` agents of which
 * `crowd` share one place (the Plaza) from the start, the rest ten to a house; each knows only
 * its own place, so they stay where they are. And a store that records the size of every tick
 * plan it is given.
 */
import { createAgent } from "../../src/app/lifecycle/create_agent.ts";
import { updateAgent } from "../../src/app/lifecycle/update_agent.ts";
import { replaceEnvironment } from "../../src/app/world/environment_store.ts";
import { createWorld } from "../../src/app/world/world_store.ts";
import { CreateAgentInput } from "../../src/domain/agent/agent.ts";
import type { AgentId, WorldId } from "../../src/domain/ids.ts";
import { Environment } from "../../src/domain/world/environment.ts";
import { CreateWorldInput } from "../../src/domain/world/world.ts";
import type { Deps } from "../../src/ports/deps.ts";
import type { DocumentKey, DocumentStore } from "../../src/ports/document_store.ts";
import type { Storage } from "../../src/ports/storage.ts";

/** The place the crowd shares. */
export const CROWDED_PLACE = "Plaza";

/** Agents per house outside the crowd. */
const PER_HOUSE = 10;

function environment(houses: number): Environment {
  const place = (name: string, objects: string[]) => ({
    name,
    common: false,
    subAreas: [{ name: "hall", objects: objects.map((o) => ({ name: o })) }],
  });
  return Environment.parse({
    areas: [
      place(CROWDED_PLACE, ["bench", "fountain", "notice board"]),
      ...Array.from({ length: houses }, (_, i) => place(`House ${i + 1}`, ["bed", "desk"])),
    ],
  });
}

/**
 * Creates the world `id` (manual clock, 09:00, the offline model's `seed` when given) with
 * `agents` agents, the first `crowd` of them in the Plaza's hall, the others ten to a house,
 * each at its home doing something of its own.
 */
export async function createCrowdedWorld(
  deps: Deps,
  id: string,
  { agents, crowd, seed }: { agents: number; crowd: number; seed?: number },
): Promise<WorldId> {
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({
      id,
      name: "Crowded",
      startTime: "2023-02-13T09:00:00",
      clock: { mode: "manual" },
      ...(seed === undefined ? {} : { settings: { seed } }),
    }),
  );
  const worldId = world.id as WorldId;
  const houses = Math.ceil((agents - crowd) / PER_HOUSE);
  await replaceEnvironment(deps, worldId, environment(houses));
  for (let i = 0; i < agents; i++) {
    const agentId = `a${String(i).padStart(4, "0")}` as AgentId;
    const home = i < crowd ? CROWDED_PLACE : `House ${Math.floor((i - crowd) / PER_HOUSE) + 1}`;
    await createAgent(
      deps,
      worldId,
      CreateAgentInput.parse({
        id: agentId,
        name: `Resident ${i}`,
        home,
        workplace: home,
        description: `Resident ${i} lives at ${home}; Resident ${i} likes a quiet morning`,
      }),
    );
    await updateAgent(deps, { worldId, agentId }, {
      location: `${home}:hall`,
      action: `standing in the hall, thinking of errand ${i}`,
    });
  }
  return worldId;
}

/** `storage` whose documents store records the JSON size of each tick plan created in it. */
export function measuringPlans(storage: Storage): { storage: Storage; planBytes: number[] } {
  const planBytes: number[] = [];
  const base = storage.documents;
  const documents: DocumentStore = {
    get: (key) => base.get(key),
    list: (collection, scope) => base.list(collection, scope),
    create: <T>(key: DocumentKey, value: T, options?: Parameters<DocumentStore["create"]>[2]) => {
      if (key.collection === "tick_open") {
        planBytes.push(new TextEncoder().encode(JSON.stringify(value)).length);
      }
      return base.create(key, value, options);
    },
    replace: (key, value, options) => base.replace(key, value, options),
    delete: (key) => base.delete(key),
    deleteAll: (collection, scope) => base.deleteAll(collection, scope),
  };
  const measured = new Proxy(storage, {
    get(target, name) {
      if (name === "documents") return documents;
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { storage: measured, planBytes };
}
