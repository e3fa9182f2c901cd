/** @module `PATCH …/agents/{agent}`: rename an agent, change its age, traits or status. */
import { z } from "zod";
import { type Agent, type AgentScope, Traits, visibleName } from "../../domain/mod.ts";
import { agentKey, loadAgent } from "../agents/mod.ts";
import { type Deps, updateDocument } from "../../ports/mod.ts";

/** The body of `PATCH /v1/worlds/{world}/agents/{agent}`: only the fields sent change. */
export const UpdateAgentInput = z
  .strictObject({
    name: visibleName(100).optional(),
    age: z.number().int().min(0).max(1000).nullable().optional().meta({
      description: "null clears it",
    }),
    traits: Traits.optional().meta({
      description: "Replaces the list (a list or comma-separated)",
    }),
    location: z.string().trim().min(1).max(300).nullable().optional().meta({
      description: "Where the agent is now (an environment path such as `Hobbs Cafe:cafe`)",
    }),
    action: z.string().trim().min(1).max(500).nullable().optional().meta({
      description: "What the agent is doing now, e.g. `reading at the counter`",
    }),
  })
  .meta({
    id: "UpdateAgentInput",
    example: { traits: ["patient", "kind", "curious"], action: "sweeping the shop floor" },
  });
export type UpdateAgentInput = z.infer<typeof UpdateAgentInput>;

/**
 * Changes the fields sent with a version-checked replace, so it never undoes a concurrent
 * perceive or tick step.
 * @throws `agent_not_found`, `conflict` when other writes keep winning.
 */
export async function updateAgent(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  input: UpdateAgentInput,
): Promise<Agent> {
  const read = await loadAgent(deps, scope);
  const next = await updateDocument<Agent>(deps.storage.documents, agentKey(scope), {
    change: (current) => {
      if (current === null) return undefined; // deleted meanwhile: nothing to change
      const changed: Agent = { ...current };
      for (const field of ["name", "age", "traits", "location", "action"] as const) {
        if (input[field] !== undefined) Object.assign(changed, { [field]: input[field] });
      }
      return changed;
    },
    read,
    create: false,
    conflict:
      `Cannot update agent "${scope.agentId}": other writes kept changing it, retry shortly`,
  });
  if (next === null) return (await loadAgent(deps, scope)).value; // answers agent_not_found
  if (input.name !== undefined || input.age !== undefined || input.traits !== undefined) {
    // The cached summary describes the old name, age and traits: remake it on next use.
    await deps.storage.documents.delete({
      collection: "summaries",
      scope: scope.worldId,
      id: scope.agentId,
    });
  }
  return next;
}
