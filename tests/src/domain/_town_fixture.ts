/** @module A three-person town for world tick tests: a cafe, a house and a park. */
import { OfflineLanguageModel } from "../../../lib/offline/offline_language_model.ts";
import { CreateAgentInput } from "../../../src/domain/agent/agent.ts";
import { createAgent } from "../../../src/app/lifecycle/create_agent.ts";
import type { Deps } from "../../../src/ports/deps.ts";
import { ModelUnavailableError } from "../../../src/domain/errors.ts";
import type { WorldId } from "../../../src/domain/ids.ts";
import type { Attribution } from "../../../src/domain/usage.ts";
import type { LanguageModel, Prompt } from "../../../src/ports/language_model.ts";
import { Environment } from "../../../src/domain/world/environment.ts";
import { replaceEnvironment } from "../../../src/app/world/environment_store.ts";
import { CreateWorldInput } from "../../../src/domain/world/world.ts";
import { createWorld } from "../../../src/app/world/world_store.ts";

/** The town's environment. */
export const TOWN = {
  areas: [
    {
      name: "Hobbs Cafe",
      common: true,
      subAreas: [
        {
          name: "cafe",
          objects: [{ name: "counter" }, { name: "coffee machine" }, { name: "table" }],
        },
        { name: "kitchen", objects: [{ name: "stove", state: "off" }] },
      ],
    },
    {
      name: "Lin house",
      subAreas: [
        { name: "bedroom", objects: [{ name: "bed" }, { name: "desk" }] },
        { name: "kitchen", objects: [{ name: "stove" }, { name: "fridge" }] },
      ],
    },
    {
      name: "Johnson Park",
      common: true,
      subAreas: [{ name: "lawn", objects: [{ name: "bench" }] }],
    },
  ],
};

/** The residents, as `POST …/agents` bodies. */
export const RESIDENTS = [
  {
    id: "eddy",
    name: "Eddy Lin",
    home: "Lin house",
    workplace: "Johnson Park",
    description: "Eddy Lin is a music student; Eddy Lin is John Lin's son",
  },
  {
    id: "isabella",
    name: "Isabella Rodriguez",
    home: "Hobbs Cafe",
    workplace: "Hobbs Cafe",
    description:
      "Isabella Rodriguez is the owner of Hobbs Cafe; she is planning a Valentine's Day party",
  },
  {
    id: "john",
    name: "John Lin",
    home: "Lin house",
    workplace: "Hobbs Cafe",
    description: "John Lin is a pharmacist; John Lin lives with his son Eddy Lin",
  },
];

/** A model call as a test sees it. */
export interface SeenCall {
  kind: string;
  agentId?: string;
  operation: string;
}

/**
 * The offline model, recording every call; `failFor` makes every call attributed to that agent
 * fail as unavailable.
 */
export function recordingModel(failFor?: string): { model: LanguageModel; calls: SeenCall[] } {
  const inner = new OfflineLanguageModel({});
  const calls: SeenCall[] = [];
  return {
    calls,
    model: {
      info: inner.info,
      complete<T>(prompt: Prompt<T>, attribution: Attribution) {
        calls.push({
          kind: prompt.kind,
          agentId: attribution.agentId,
          operation: attribution.operation,
        });
        if (failFor !== undefined && attribution.agentId === failFor) {
          return Promise.reject(
            new ModelUnavailableError("model_unavailable", "Cannot reach the model"),
          );
        }
        return inner.complete(prompt, attribution);
      },
    },
  };
}

/** Creates the town in `deps` and returns its id. */
export async function makeTown(
  deps: Deps,
  options: { id?: string; startTime?: string; residents?: typeof RESIDENTS } = {},
): Promise<WorldId> {
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({
      id: options.id ?? "town",
      name: "Town",
      startTime: options.startTime ?? "2023-02-13T06:50:00",
    }),
  );
  const id = world.id as WorldId;
  await replaceEnvironment(deps, id, Environment.parse(TOWN));
  for (const resident of options.residents ?? RESIDENTS) {
    await createAgent(deps, id, CreateAgentInput.parse(resident));
  }
  return id;
}
