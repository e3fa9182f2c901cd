/**
 * @module Where an agent's persona record is stored, and reading it: the persona folder edits it,
 * and cognition reads it for the agent's stable identity (a card's persona).
 */
import type { Deps, DocumentKey } from "../../ports/mod.ts";
import type { AgentScope, PersonaRecord } from "../../domain/mod.ts";

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
