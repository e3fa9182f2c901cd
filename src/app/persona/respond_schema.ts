/** @module The HTTP shapes of respond: what a message brings and what an in-character reply returns. */
import { z } from "zod";
import {
  ActionCall,
  DroppedAction,
  GameTime,
  MemoryId,
  MemoryKind,
  Provenance,
  UsageCounts,
  visibleName,
} from "../../domain/mod.ts";

const Speaker = z
  .strictObject({
    name: visibleName(100).meta({ example: "a reporter" }),
    description: z.string().trim().min(1).max(500).optional().meta({
      example: "a journalist from the town paper, curious about the election",
    }),
  })
  .meta({ id: "Speaker" });

/** The body of `POST …/agents/{agent}/respond`. */
export const RespondInput = z
  .strictObject({
    message: z.string().trim().min(1).max(4000),
    speaker: Speaker.optional().meta({
      description: 'Who talks to the agent (chat, interview); default "A stranger"',
    }),
    mode: z.enum(["chat", "interview", "inner_voice"]).default("chat").meta({
      description:
        "chat: remembered as told_by the speaker; interview: nothing remembered; inner_voice: the message is the agent's own directive, remembered as inner_voice and may re-plan",
    }),
    history: z
      .array(z.strictObject({
        speaker: visibleName(100),
        text: z.string().trim().min(1).max(4000),
      }))
      .max(50)
      .optional()
      .meta({ description: "Earlier turns, oldest first; default: the session's turns" }),
    conversationId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional().meta({
      description: "Continue (or start, with your own id) a server-side session",
    }),
    at: GameTime.optional().meta({
      description: "Game time of the message; default: the world clock",
    }),
    tokenBudget: z.number().int().min(800).max(64_000).default(4000).meta({
      description:
        "Most estimated prompt tokens of the reply prompt; old turns and weaker memories are left out to fit",
    }),
    facets: z.number().int().min(1).max(4).default(2).meta({
      description: "How many scene facets go into the prompt",
    }),
    memories: z.number().int().min(0).max(30).default(8).meta({
      description: "How many retrieved memories go into the prompt",
    }),
  })
  .meta({
    id: "RespondInput",
    example: { message: "How is the party planning going?", speaker: { name: "a reporter" } },
  });
export type RespondInput = z.input<typeof RespondInput>;

const Scores = z.object({
  title: z.string(),
  score: z.number(),
  relevance: z.number(),
  cue: z.number(),
  matched: z.array(z.string()),
});

/** What a reply drew on besides memories and facets (issue 22). */
export const UsedContext = z.object({
  lore: z.array(z.object({
    id: z.string(),
    matched: z.string().nullable().meta({
      description: "The key the dialogue said; null for a constant entry",
    }),
  })).meta({
    description: "World lore entries the prompt carried (PUT /v1/worlds/{world}/lore)",
    example: [{ id: "mill-secret", matched: "mill" }],
  }),
}).meta({ id: "UsedContext" });

/** The response of respond. */
export const RespondResult = z
  .object({
    reply: z.string().meta({ example: "Isabella Rodriguez: (smiles) It's coming along nicely!" }),
    text: z.string().meta({
      description: "The reply line without the `Name: ` prefix, ready for a chat bubble",
      example: "(smiles) It's coming along nicely!",
    }),
    thoughts: z.string().nullable(),
    gesture: z.string().nullable().meta({
      description: 'A brief gesture in words ("wipes the counter"), also shown in `reply`',
    }),
    actions: z.array(ActionCall).meta({
      description:
        "The game's actions (PUT …/actions) the agent takes in this turn, their arguments valid against their schemas; report each outcome with POST …/perceive and the action's id as eventId",
      example: [{ id: "act_01", name: "give_item", arguments: { item: "lantern" } }],
    }),
    droppedActions: z.array(DroppedAction).meta({
      description:
        "Actions the model chose that the game never gets: unknown names or arguments that do not match the schema, with the reason",
    }),
    facets: z.array(z.object({ title: z.string(), score: z.number() })).meta({
      description: "The scene facets sent to the model, best first",
    }),
    memories: z.array(z.object({ id: MemoryId, description: z.string(), provenance: Provenance }))
      .meta({ description: "The memories sent to the model, best first" }),
    bounded: z.boolean().meta({
      description:
        "True when the agent answered with uncertainty: the question reaches beyond what it can know",
    }),
    mode: z.enum(["chat", "interview", "inner_voice"]),
    conversationId: z.string(),
    stored: z.array(z.object({ id: MemoryId, kind: MemoryKind, provenance: Provenance })).meta({
      description: "Memories this reply wrote (none in interview mode)",
    }),
    replanned: z.boolean().meta({
      description: "Whether an inner-voice directive re-planned the day",
    }),
    replanError: z.string().optional().meta({
      description: "The error code when re-planning failed (the directive is stored anyway)",
    }),
    used: UsedContext,
    stages: z.object({
      anchor: z.object({
        source: z.enum(["summary", "description"]),
        summary: z.string(),
        coreTraits: z.array(z.string()),
        doing: z.string().nullable(),
        plan: z.array(z.string()),
      }),
      select: z.object({ query: z.string(), ranking: z.array(Scores) }),
      recall: z.object({
        memories: z.array(z.object({
          id: MemoryId,
          score: z.number().nullable(),
          via: z.enum(["retrieval", "lore"]),
        })),
      }),
      bound: z.object({ now: GameTime, hints: z.array(z.string()), bounded: z.boolean() }),
      enact: z.object({
        tokenBudget: z.number(),
        estimatedPromptTokens: z.number(),
        trimmed: z.object({
          history: z.number(),
          memories: z.number(),
          facets: z.number(),
          cardNotes: z.number(),
        }),
      }),
    }),
    usage: UsageCounts,
  })
  .meta({ id: "RespondResult" });
export type RespondResult = z.infer<typeof RespondResult>;
