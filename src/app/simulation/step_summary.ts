/** @module What one agent's step reports: the summary a tick result lists per agent. */
import { z } from "zod";
import { AgentId } from "../../domain/mod.ts";

/** What one agent did in a tick. */
export const AgentStepSummary = z
  .object({
    agentId: AgentId,
    location: z.string().nullable().meta({ description: "Where it is after the tick" }),
    action: z.string().nullable().meta({ description: "What it is doing after the tick" }),
    emoji: z.string().optional(),
    perceived: z.number().int().meta({ description: "New observations stored this tick" }),
    reacted: z.string().optional().meta({
      description: "continue, react or talk, when the model decided on something it saw",
    }),
    conversationId: z.string().optional(),
    reflected: z.number().int().optional().meta({ description: "Reflections stored" }),
    budgetExhausted: z.boolean().optional().meta({
      description:
        "True when a budget (the world's daily one, or the calling key's) was spent as this agent's step began: it kept its plan and called no model",
    }),
    error: z.string().optional().meta({
      description: "Why the step failed (the agent_error event has it too)",
    }),
  })
  .meta({ id: "AgentStepSummary" });

export type AgentStepSummary = z.infer<typeof AgentStepSummary>;
