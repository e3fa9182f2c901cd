/**
 * @module The world the archive benches export and import (`tests/bench/world_archive.ts`,
 * `tests/bench/archive_speed.ts`): agents whose observations are written straight into the
 * store with 384-dimension local-embedder vectors, no model call.
 */
import { abortableSleep } from "../../lib/abortable_sleep.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { RandomIdSource } from "../../lib/random_id_source.ts";
import { createAgent } from "../../src/app/lifecycle/create_agent.ts";
import { createWorld } from "../../src/app/world/world_store.ts";
import { CreateAgentInput } from "../../src/domain/agent/agent.ts";
import { AgentId, WorldId } from "../../src/domain/ids.ts";
import { CreateWorldInput } from "../../src/domain/world/world.ts";
import type { Deps } from "../../src/ports/deps.ts";
import type { Storage } from "../../src/ports/storage.ts";
import { benchObservations, storeEmbedded } from "./stored_memories.ts";

/** The benches' world id. */
export const BENCH_WORLD = WorldId.parse("bench");

const embedder = new LocalEmbedder({ dimensions: 384 });

/** The offline model, the local embedder and random ids over `storage`. */
export function benchDeps(storage: Storage): Deps {
  return {
    storage,
    model: new OfflineLanguageModel({}),
    embedder,
    ids: new RandomIdSource(),
    sleep: abortableSleep,
  };
}

/** How {@linkcode fillBenchWorld} fills the world. */
export interface BenchWorldShape {
  agents: number;
  /** Memories in all, shared evenly by the agents. */
  memories: number;
  /** Memories written per store call. */
  batch: number;
  /** Digits of the memory ids. */
  idDigits: number;
  /** Each perception with an event id, as a tick's are. @default none */
  eventIds?: boolean;
}

/** Creates {@linkcode BENCH_WORLD} with its agents and writes their memories. */
export async function fillBenchWorld(deps: Deps, shape: BenchWorldShape): Promise<void> {
  const worldId = BENCH_WORLD;
  await createWorld(
    deps,
    CreateWorldInput.parse({ id: worldId, name: "Bench", startTime: "2023-02-13T07:00:00" }),
  );
  const perAgent = Math.ceil(shape.memories / shape.agents);
  for (let a = 0; a < shape.agents; a++) {
    const agentId = AgentId.parse(`agent${a}`);
    await createAgent(
      deps,
      worldId,
      CreateAgentInput.parse({ id: agentId, name: `Agent ${a}`, description: "Lives in town" }),
    );
    for (let b = 0; b < perAgent; b += shape.batch) {
      const range = { from: b, to: Math.min(perAgent, b + shape.batch) };
      const records = benchObservations({ worldId, agentId }, range, {
        subject: `Agent ${a}`,
        idDigits: shape.idDigits,
      });
      await storeEmbedded(
        deps,
        { worldId, agentId },
        shape.eventIds
          ? records.map((m, i) => ({ ...m, eventId: `tick${b + i}:someone` }))
          : records,
      );
    }
  }
}
