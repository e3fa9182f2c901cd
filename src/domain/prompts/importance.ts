/** @module Prompt: rate the poignancy of a batch of observations in one call (Generative Agents §4.1). */
import { z } from "zod";
import { dataSection, listPrompt, listSchema, type Prompt } from "./prompt.ts";
import { inertJson } from "./data_block.ts";

/** Inputs of {@linkcode buildImportancePrompt}. */
export interface ImportanceInput {
  agentName: string;
  /** The texts to rate, in order. */
  observations: string[];
}

const ANSWER = { key: "scores", item: z.number().int().min(1).max(10) } as const;

/** One integer 1-10 per observation, in order. */
export function importanceSchema(count: number) {
  return listSchema(ANSWER, count);
}
export type ImportanceOutput = z.infer<ReturnType<typeof importanceSchema>>;

/**
 * Builds the batched importance prompt: 1 is mundane (brushing teeth, making the bed), 10 is
 * life-changing (a break-up, a death, being accepted to college).
 * @see Generative Agents §4.1 "Importance"; Park et al. 2023 §4.1.
 */
export function buildImportancePrompt(input: ImportanceInput): Prompt<ImportanceOutput> {
  return listPrompt({
    kind: "importance",
    tier: "fast",
    input,
    answer: ANSWER,
    count: input.observations.length,
    items: "numbers, one per event, in the order given",
    tokens: { base: 16, each: 4 },
    rules: [
      "Rate how much each event would matter to the character who experienced it, from 1 (routine: brushing teeth, making the bed, walking past a bench) through 5 (notable: a new acquaintance, a disagreement at work) to 10 (life-changing: a break-up, a death in the family, winning an election).",
    ],
    user: [
      `Character: ${inertJson(input.agentName)}\n${
        dataSection("Events, in order", "events", input.observations)
      }`,
    ],
  });
}
