/**
 * @module API keys: what a key may do (permissions), where (scope), how fast (rate limit) and
 * how much (budget). The secret itself never appears here: keys are stored hashed (lib/access).
 */
import { z } from "zod";
import { AgentId, WorldId } from "../ids.ts";
import { visibleName } from "../text/mod.ts";
import { SimulacraError } from "../errors.ts";

/** The permissions a key can hold; the admin key holds all of them and more. */
export const Permission = z
  .enum(["read", "perceive", "talk", "direct", "simulate", "manage"])
  .meta({
    id: "Permission",
    description:
      "read: every GET but the card export, retrieve, events; perceive; talk: respond in chat and interview mode; direct: inner voice, object states, environment, persona edits, evaluate; simulate: tick, reflect, plan, react, conversations, world metrics; manage: create and change agents, card import and export, world settings",
  });
export type Permission = z.infer<typeof Permission>;

/** Every permission, in a stable order. */
export const PERMISSIONS: readonly Permission[] = Permission.options;

/** What an operation needs: a permission, or the admin key itself. */
export type Requirement = Permission | "admin";

/** Where a key may act. */
export const KeyScope = z
  .strictObject({
    worlds: z.union([z.tuple([z.literal("*")]), z.array(WorldId).min(1).max(100)]).meta({
      description: 'Every world (["*"]) or these world ids',
    }),
    agents: z.array(AgentId).min(1).max(100).optional().meta({
      description:
        "Only these agents: agent routes for other agents answer 404, and world-level routes other than reading the world are refused",
    }),
  })
  .meta({ id: "KeyScope" });
export type KeyScope = z.infer<typeof KeyScope>;

/** A request-rate limit: at most `requests` per `perSeconds` (sliding window). */
export const RateLimitRule = z
  .strictObject({
    requests: z.number().int().min(1).max(1_000_000),
    perSeconds: z.number().int().min(1).max(86_400),
  })
  .meta({ id: "RateLimitRule" });
export type RateLimitRule = z.infer<typeof RateLimitRule>;

/** Most model calls and tokens a key may spend over its lifetime. */
export const KeyBudget = z
  .strictObject({
    calls: z.number().int().min(0).max(1e12).optional(),
    tokens: z.number().int().min(0).max(1e15).optional(),
  })
  .meta({ id: "KeyBudget" });
export type KeyBudget = z.infer<typeof KeyBudget>;

/** A speaker name: one line of visible text. */
export const SpeakerName = visibleName(100);

/** The body of `POST /v1/keys`. */
export const CreateKeyInput = z
  .strictObject({
    name: z.string().trim().min(1).max(100).meta({ example: "tavern game client" }),
    scope: KeyScope,
    permissions: z.array(Permission).min(1).max(6).refine(
      (list) => new Set(list).size === list.length,
      "List each permission once",
    ),
    rateLimit: RateLimitRule.optional().meta({
      description: "Default: the server's (SIMULACRA_KEY_RATE_LIMIT, 120 requests per 60 s)",
    }),
    budget: KeyBudget.optional().meta({
      description:
        "Lifetime model calls and tokens, its ticks' included (queued steps too); model-calling requests answer 429 budget_exceeded once spent. Checked when a request starts, and as each step of a tick it started starts: what starts under budget finishes, so a request (and each one started alongside it) can go over by its own cost, a tick by the steps running when the budget ran out",
    }),
    speaker: SpeakerName.optional().meta({
      description:
        "The fixed speaker of respond: what this key says is always remembered as told_by this name",
      example: "the player",
    }),
    player: AgentId.optional().meta({
      description:
        "A player agent (kind player) the key speaks as: its conversation lines must be that player's (others answer 403), and respond remembers what it says as told_by the player's name",
      example: "ada",
    }),
    expiresAt: z.iso.datetime({ offset: true }).optional().meta({
      description: "Wall-clock time after which the key is refused",
    }),
  })
  .meta({
    id: "CreateKeyInput",
    example: {
      name: "tavern game client",
      scope: { worlds: ["smallville"], agents: ["isabella"] },
      permissions: ["read", "perceive", "talk"],
      speaker: "the player",
    },
  });
export type CreateKeyInput = z.infer<typeof CreateKeyInput>;

/** A key as listed: everything but the secret. */
export const ApiKey = CreateKeyInput.safeExtend({
  id: z.string().meta({ example: "k_01jd5x" }),
  createdAt: z.string().meta({ description: "Wall-clock ISO time" }),
}).meta({ id: "ApiKey" });
export type ApiKey = z.infer<typeof ApiKey>;

/** Who is calling: the admin (or anyone, on a loopback server with no admin key), or a key. */
export type Principal =
  | { kind: "admin" }
  | { kind: "key"; key: ApiKey };

/** Whether the principal holds a permission (the admin holds every one). */
export function allows(principal: Principal, need: Requirement): boolean {
  if (principal.kind === "admin") return true;
  return need !== "admin" && principal.key.permissions.includes(need);
}

/** Whether the principal may see a world. */
export function seesWorld(principal: Principal, worldId: string): boolean {
  if (principal.kind === "admin") return true;
  const worlds = principal.key.scope.worlds;
  return worlds[0] === "*" || (worlds as readonly string[]).includes(worldId);
}

/** Whether the principal may see an agent (of a world it sees). */
export function seesAgent(principal: Principal, agentId: string): boolean {
  if (principal.kind === "admin") return true;
  const agents = principal.key.scope.agents;
  return agents === undefined || (agents as readonly string[]).includes(agentId);
}

/** The key id of a principal, for provenance and audit; undefined for the admin. */
export function keyIdOf(principal: Principal): string | undefined {
  return principal.kind === "key" ? principal.key.id : undefined;
}

/** The player a key is bound to, or undefined (the admin, or an unbound key). */
export function boundPlayer(principal: Principal): string | undefined {
  return principal.kind === "key" ? principal.key.player : undefined;
}

/**
 * The player a line is sent as: a bound key's own, checked against the one named, and within the
 * key's agents.
 * @throws `forbidden` (another player, or an agent outside the key), `invalid_request` (none named).
 */
export function playerSpeaker(principal: Principal, named: string | undefined): string {
  const bound = boundPlayer(principal);
  if (bound !== undefined && named !== undefined && named !== bound) {
    throw new SimulacraError(
      "forbidden",
      `Cannot send a line as "${named}": this key speaks only as player "${bound}"`,
      { details: { speaker: named, player: bound } },
    );
  }
  const speaker = named ?? bound;
  if (speaker === undefined) {
    throw new SimulacraError("invalid_request", 'Name the player saying the line in "speaker"', {
      details: { field: "speaker" },
    });
  }
  if (!seesAgent(principal, speaker)) {
    throw new SimulacraError(
      "forbidden",
      `Cannot send a line as "${speaker}": it is outside this key's agents`,
      { details: { speaker } },
    );
  }
  return speaker;
}
