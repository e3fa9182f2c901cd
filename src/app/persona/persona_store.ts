/**
 * @module An agent's persona record in storage: read, put, and update with its lorebook and card
 * text (Wang et al. 2026 §3.3).
 */
import { loadAgent, ofExistingAgent } from "../agents/mod.ts";
import { type Deps, type DocumentKey, updateDocument } from "../../ports/mod.ts";
import { type AgentScope, Persona, personaNotFound, PersonaRecord } from "../../domain/mod.ts";

/** The document key of an agent's persona. */
export function personaKey(scope: AgentScope): DocumentKey {
  return { collection: "personas", scope: scope.worldId, id: scope.agentId };
}
/** The stored persona record of an agent, or null when it has none (does not check the agent). */
export async function loadPersonaRecord(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<PersonaRecord | null> {
  return (await deps.storage.documents.get<PersonaRecord>(personaKey(scope)))?.value ?? null;
}
/**
 * The persona of an agent.
 * @throws `agent_not_found`; `not_found` when the agent has no persona yet.
 */
export async function getPersona(deps: Pick<Deps, "storage">, scope: AgentScope): Promise<Persona> {
  await loadAgent(deps, scope);
  const record = await loadPersonaRecord(deps, scope);
  if (!record) throw personaNotFound(scope);
  return record.persona;
}
/**
 * Sets an agent's persona, keeping the lorebook and card text of an earlier import.
 * @throws `agent_not_found`, `store_unavailable`.
 */
export const putPersona = ofExistingAgent<Persona, Persona>(async (deps, scope, persona) => {
  await updatePersonaRecord(deps, scope, (old) => ({
    persona,
    lore: old?.lore ?? [],
    card: old?.card ?? null,
  }));
  return persona;
});
/**
 * Writes an agent's persona record from the stored one (null when none), with compare-and-set,
 * retrying when a concurrent write wins.
 * @throws `conflict` when it keeps losing the race.
 */
export async function updatePersonaRecord(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  next: (old: PersonaRecord | null) => PersonaRecord,
): Promise<PersonaRecord> {
  return (await updateDocument(deps.storage.documents, personaKey(scope), {
    change: next,
    conflict:
      `Cannot save the persona of agent "${scope.agentId}": it kept changing concurrently, retry`,
  }))!;
}
