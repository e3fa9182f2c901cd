/**
 * @module An agent's persona record in storage: read, put, and update with its lorebook and card
 * text (Wang et al. 2026 §3.3).
 */
import { loadAgent, loadPersonaRecord, ofExistingAgent, personaKey } from "../agents/mod.ts";
import { type Deps, updateDocument } from "../../ports/mod.ts";
import { summaryKey } from "../cognition/mod.ts";
import { type AgentScope, Persona, personaNotFound, PersonaRecord } from "../../domain/mod.ts";
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
 * retrying when a concurrent write wins. The persona's background is part of the agent's
 * identity, so the cached summary is dropped: the next use makes it from the new one.
 * @throws `conflict` when it keeps losing the race.
 */
export async function updatePersonaRecord(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  next: (old: PersonaRecord | null) => PersonaRecord,
): Promise<PersonaRecord> {
  const record = (await updateDocument(deps.storage.documents, personaKey(scope), {
    change: next,
    conflict:
      `Cannot save the persona of agent "${scope.agentId}": it kept changing concurrently, retry`,
  }))!;
  await deps.storage.documents.delete(summaryKey({ worldId: scope.worldId, id: scope.agentId }));
  return record;
}
