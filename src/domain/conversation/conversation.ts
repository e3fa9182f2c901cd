/** @module A conversation between two to eight agents, as stored and as the API shows it (Generative Agents §4.3). */
import { z } from "zod";
import { AgentId, WorldId } from "../ids.ts";
import { UsageCounts } from "../usage.ts";
import { GameTime } from "../time/mod.ts";
import { NotFoundError } from "../errors.ts";

/** The most participants a conversation may have. */
export const MAX_PARTICIPANTS = 8;

/** One line of a conversation. */
export const ConversationLine = z
  .object({
    speaker: AgentId,
    name: z.string().meta({ description: "The speaker's name" }),
    text: z.string(),
    at: GameTime,
    used: z.object({ lore: z.array(z.string()) }).optional().meta({
      description: "World lore entries the line's prompt carried (ids), when any",
    }),
  })
  .meta({ id: "ConversationLine" });
export type ConversationLine = z.infer<typeof ConversationLine>;
/**
 * Who ended a conversation: one of the speakers, or the world's turn cap; in a group, `quiet`
 * when nobody had anything to add; with a player, `open` while it waits for the player's line,
 * `ended` when the game closed it, `timeout` when the player did not answer in time.
 */
export const ConversationEnd = z.enum([
  "initiator",
  "other",
  "turn_cap",
  "quiet",
  "open",
  "ended",
  "timeout",
]).meta({ id: "ConversationEnd" });
export type ConversationEnd = z.infer<typeof ConversationEnd>;
/** A conversation as stored in the "conversations" collection. */
export const Conversation = z
  .object({
    id: z.string(),
    worldId: WorldId,
    participants: z.array(AgentId).min(2).max(MAX_PARTICIPANTS).meta({
      description: "Initiator first",
    }),
    topic: z.string().nullable(),
    startedAt: GameTime,
    endedAt: GameTime.meta({ description: "One game minute after the last line" }),
    lines: z.array(ConversationLine),
    endedBy: ConversationEnd,
    listeners: z.array(AgentId).optional().meta({
      description:
        "Agents nearby who were not in it but overheard some of it (remembered as overheard:<speaker>)",
    }),
    private: z.boolean().optional().meta({ description: "True when nobody could overhear it" }),
    players: z.array(AgentId).optional().meta({
      description: "The participants the game plays (agents of kind player)",
    }),
    open: z.boolean().optional().meta({
      description:
        "True while a conversation with a player waits for the player's line (POST …/conversations/{id}/lines)",
    }),
  })
  .meta({ id: "Conversation" });
export type Conversation = z.infer<typeof Conversation>;
/** What {@linkcode converse} returns: the stored conversation and what it cost. */
export const ConversationResult = Conversation.extend({
  conversationId: z.string().optional().meta({
    description: "The id again, set for a conversation with a player (…/lines and …/end take it)",
  }),
  replanFailed: z.array(AgentId).meta({
    description:
      "Participants whose plan could not be remade after the talk (model or store unavailable); their old plan stands",
  }),
  usage: UsageCounts,
}).meta({ id: "ConversationResult" });
export type ConversationResult = z.infer<typeof ConversationResult>;
/** The body of `POST /v1/worlds/{world}/conversations`. */
export const StartConversationInput = z
  .strictObject({
    participants: z
      .array(AgentId)
      .min(2)
      .max(MAX_PARTICIPANTS)
      .meta({
        description:
          "The initiator, then the agents it talks to (2–8 different agents; a player among them opens a conversation that waits for the player's line)",
      }),
    topic: z.string().trim().min(1).max(500).optional().meta({
      description: "What the initiator wants to talk about",
    }),
    at: GameTime.optional().meta({
      description: "Game time of the first line; default: the world clock",
    }),
    private: z.boolean().optional().meta({
      description: "When true, nobody nearby overhears it",
    }),
  })
  .meta({
    id: "StartConversationInput",
    example: {
      participants: ["isabella", "klaus"],
      topic: "invite Klaus to the Valentine's party",
    },
  });
export type StartConversationInput = z.infer<typeof StartConversationInput>;

/** The `not_found` error of a conversation the world does not have. */
export function conversationNotFound(worldId: WorldId, id: string): NotFoundError {
  return new NotFoundError(
    "not_found",
    `Cannot find conversation "${id}" in world "${worldId}": use the conversationId of a conversation event or of POST /v1/worlds/${worldId}/conversations`,
  );
}
