/** @module Agents: a character in a world, seeded from its one-paragraph description (Generative Agents §4.1). */
import { z } from "zod";
import { NotFoundError } from "../errors.ts";
import { AgentId, type AgentScope, MemoryId } from "../ids.ts";
import { GameTime } from "../time/mod.ts";
import { visibleName } from "../text/mod.ts";

/**
 * What controls an agent: the simulation (`agent`), or the game (`player`: no plans, no model
 * calls, no tick step; its location and action are set with PATCH, and others see it).
 */
export const AgentKind = z.enum(["agent", "player"]).meta({ id: "AgentKind" });
export type AgentKind = z.infer<typeof AgentKind>;

/** Whether the game controls the agent (see {@linkcode AgentKind}). */
export function isPlayer(agent: { kind?: AgentKind }): boolean {
  return agent.kind === "player";
}

/** An agent as stored. Cognitive state (counters, pending work) lives here too. */
export const Agent = z
  .object({
    id: AgentId,
    worldId: z.string(),
    kind: AgentKind.optional().meta({ description: "Absent: agent" }),
    name: z.string(),
    age: z.number().int().nullable(),
    traits: z.array(z.string()),
    description: z.string(),
    createdAt: GameTime,
    /** Summed importance of memories since the last reflection (Generative Agents §4.2 trigger). */
    importanceSinceReflection: z.number().int().min(0),
    /** Memories stored while the importance model was down, scored on the next perceive. */
    pendingImportance: z.array(MemoryId),
    location: z.string().nullable(),
    action: z.string().nullable(),
    /** The area the agent lives in, spelled as in the environment (Generative Agents §5). */
    home: z.string().nullable(),
    workplace: z.string().nullable(),
    /** Areas of the environment the agent knows: home, workplace, common areas, and perceived ones. */
    knownAreas: z.array(z.string()),
    /** When its memories were last consolidated (a night's "sleep", or on request). */
    consolidatedAt: GameTime.optional(),
  })
  .meta({ id: "Agent" });
export type Agent = z.infer<typeof Agent>;
/** An area name of the world's environment, matched case-insensitively. */
const AreaName = z.string().trim().min(1).max(100);
/** Traits as a list, or one comma-separated string ("kind, curious"). */
export const Traits = z
  .union([z.array(z.string().trim().min(1).max(100)).max(20), z.string().max(2000)])
  .transform((t) =>
    (typeof t === "string" ? t.split(",") : t).map((s) => s.trim()).filter((s) => s.length > 0)
  )
  .pipe(z.array(z.string().max(100)).max(20));
/** The body of `POST /v1/worlds/{world}/agents`. */
export const CreateAgentInput = z
  .strictObject({
    id: AgentId.optional().meta({ description: "Your own id; minted when absent" }),
    kind: AgentKind.optional().meta({
      description:
        "player: an agent the game controls (no plans, no model calls, no tick step; its description is not made into memories); default agent",
    }),
    name: visibleName(100),
    age: z.number().int().min(0).max(1000).optional(),
    traits: Traits.optional(),
    description: z
      .string()
      .trim()
      .min(1)
      .max(8000)
      .meta({
        description: "One paragraph; each semicolon-separated phrase becomes a seed memory",
      }),
    home: AreaName.optional().meta({
      description: "An area of the world's environment where the agent lives",
    }),
    workplace: AreaName.optional().meta({
      description: "An area of the world's environment where the agent works",
    }),
  })
  .meta({
    id: "CreateAgentInput",
    example: {
      name: "John Lin",
      age: 45,
      traits: ["patient", "kind", "organized"],
      description:
        "John Lin is a pharmacy shopkeeper at the Willow Market and Pharmacy who loves to help people; John Lin is living with his wife, Mei Lin, and son, Eddy Lin",
    },
  });
export type CreateAgentInput = z.infer<typeof CreateAgentInput>;
/**
 * The idempotency scope of what an agent claimed once (perceived event ids, its pair decision of
 * a tick): removed with the agent.
 */
export function agentIdempotencyScope(scope: AgentScope): string {
  return `${scope.worldId}/${scope.agentId}`;
}
/** The seed phrases of a description: split on semicolons, trimmed, blanks dropped. */
export function seedPhrases(description: string): string[] {
  return description.split(";").map((s) => s.trim()).filter((s) => s.length > 0);
}
/**
 * The `agent_not_found` error of an agent, e.g. when its document vanished during an update, or
 * when the caller's key may not see it (the same error, so keys cannot probe for ids).
 */
export function agentNotFound(scope: { worldId: string; agentId: string }): NotFoundError {
  return new NotFoundError(
    "agent_not_found",
    `Cannot find agent "${scope.agentId}" in world "${scope.worldId}": list agents with GET /v1/worlds/${scope.worldId}/agents`,
  );
}
