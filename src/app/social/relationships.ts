/**
 * @module Reading relationships (`GET …/agents/{agent}/relationships[/{other}]`) and the bond
 * a prompt shows with the person in front of the agent. Reads only: no model call.
 */
import type { Deps } from "../../ports/mod.ts";
import {
  type AgentScope,
  type Bonds,
  type BondShown,
  bondWith,
  closenessOf,
  describeBond,
  moodAt,
  moodBaseline,
  type MoodView,
  NotFoundError,
  personKey,
  type RelationshipView,
  relationshipView,
  type StoredBond,
} from "../../domain/mod.ts";
import { listAgents, loadAgent } from "../agents/mod.ts";
import { getWorld } from "../world/mod.ts";
import { loadBonds } from "./bonds_store.ts";

/** Every relationship of the agent, the most familiar first. */
export async function listRelationships(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<RelationshipView[]> {
  await getWorld(deps, scope.worldId);
  const agent = (await loadAgent(deps, scope)).value;
  const [bonds, agents] = await Promise.all([
    loadBonds(deps, scope),
    listAgents(deps, scope.worldId),
  ]);
  const byName = new Map(agents.map((a) => [personKey(a.name), { id: a.id }]));
  return Object.values(bonds?.relationships ?? {})
    .sort((a, b) => b.familiarity - a.familiarity || a.name.localeCompare(b.name))
    .map((bond) =>
      relationshipView(bond, {
        agentName: agent.name,
        other: byName.get(personKey(bond.name)) ?? null,
      })
    );
}

/**
 * The relationship with one agent (by id) or speaker (by name, any case).
 * @throws `world_not_found`, `agent_not_found`, `not_found` when they never met.
 */
export async function getRelationship(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  other: string,
): Promise<RelationshipView> {
  const all = await listRelationships(deps, scope);
  const found = all.find((r) => r.with === other) ??
    all.find((r) => personKey(r.name) === personKey(other));
  if (found === undefined) {
    throw new NotFoundError(
      "not_found",
      `Agent "${scope.agentId}" has no relationship with "${other}": it has not met them yet; list relationships with GET /v1/worlds/${scope.worldId}/agents/${scope.agentId}/relationships`,
    );
  }
  return found;
}

/** The agent's bond with one person as a prompt shows it, and the trust lore secrets need. */
export interface BondForPrompt {
  /** The words and numbers the prompt shows, or null when they never met. */
  shown: BondShown | null;
  /** The trust lore entries with `minTrust` are checked against; null for a stranger. */
  trust: number | null;
}

/** The bond a prompt shows with `name`, from bonds already loaded. */
export function bondForPrompt(
  bonds: Bonds | null,
  context: { agentName: string; name: string | null },
): BondForPrompt {
  const bond: StoredBond | null = context.name === null ? null : bondWith(bonds, context.name);
  if (bond === null) return { shown: null, trust: null };
  return {
    shown: {
      name: bond.name,
      summary: describeBond(bond, context.agentName),
      familiarity: bond.familiarity,
      closeness: closenessOf(bond),
      trust: bond.trust,
      affinity: bond.affinity,
    },
    trust: bond.trust,
  };
}

/** The agent's mood at a game time, drifted toward its baseline since it was last moved. */
export function moodOf(
  bonds: Bonds | null,
  context: { agent: { traits: readonly string[]; description: string }; at: string },
): MoodView {
  return moodAt(bonds?.mood ?? null, { baseline: moodBaseline(context.agent), at: context.at });
}
