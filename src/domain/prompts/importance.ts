/**
 * @module Prompt: rate the poignancy of a batch of observations in one call (Generative Agents
 * §4.1), and, given the memories nearest them, name the one each updates (supersession, README
 * "Memory upkeep").
 */
import { z } from "zod";
import { schemaMemo } from "./_schema_memo.ts";
import { chatPrompt, dataSection, type Prompt } from "./prompt.ts";
import { inertJson } from "./data_block.ts";

/** Inputs of {@linkcode buildImportancePrompt}. */
export interface ImportanceInput {
  agentName: string;
  /** The texts to rate, in order. */
  observations: string[];
  /**
   * Memories the agent already holds that the events may update (those nearest them), numbered
   * from 1 in this order. Absent or empty: only scores are asked for.
   */
  earlier?: string[];
}

/** One integer 1-10 per observation, in order; with earlier memories, the one each updates. */
export interface ImportanceOutput {
  scores: number[];
  /** Per observation, the number of the earlier memory it updates, 0 for none. */
  supersedes?: number[];
  /**
   * Per observation, how it felt to the character from -5 (hurtful, threatening) to 5 (kind, a
   * favour), 0 for neutral: it moves the relationships with the people it names and the mood
   * (issue 22), at no call of its own. Optional: an answer without it leaves feelings as they are.
   */
  valence?: number[] | null;
}

/**
 * The answer's schema: one score per observation; with `earlier` memories, also one number per
 * observation from 0 (updates none) to `earlier`.
 */
export function importanceSchema(count: number, earlier = 0): z.ZodType<ImportanceOutput> {
  return IMPORTANCE(`${count}|${earlier}`, () => buildImportanceSchema(count, earlier));
}

const IMPORTANCE = schemaMemo<z.ZodType<ImportanceOutput>>();

function buildImportanceSchema(count: number, earlier: number): z.ZodType<ImportanceOutput> {
  const scores = z.array(z.number().int().min(1).max(10)).length(count);
  const valence = z.array(z.number().int().min(-5).max(5)).length(count).nullable().optional();
  if (earlier === 0) return z.object({ scores, valence });
  return z.object({
    scores,
    supersedes: z.array(z.number().int().min(0).max(earlier)).length(count),
    valence,
  });
}

/** The rule asking for {@linkcode ImportanceOutput.valence}. */
const VALENCE_RULE =
  'Also rate in "valence" how each event felt to the character, from -5 (hurtful, threatening, a slight or a lie) through 0 (neutral) to 5 (kind, joyful, a favour or a gift); it tells how the character now feels about the people the event names.';

/**
 * Builds the batched importance prompt: 1 is mundane (brushing teeth, making the bed), 10 is
 * life-changing (a break-up, a death, being accepted to college). Given earlier memories, the
 * same call says which of them each event updates (a fact that changed: moved, a new job, now
 * closed, a new price, full again), so detecting it costs no call of its own.
 * @see Generative Agents §4.1 "Importance"; Park et al. 2023 §4.1.
 */
export function buildImportancePrompt(input: ImportanceInput): Prompt<ImportanceOutput> {
  const n = input.observations.length;
  const earlier = input.earlier ?? [];
  const asks = earlier.length > 0;
  return chatPrompt({
    kind: "importance",
    tier: "fast",
    input,
    schema: importanceSchema(n, earlier.length),
    maxTokens: 16 + (asks ? 11 : 7) * n,
    rules: [
      "Rate how much each event would matter to the character who experienced it, from 1 (routine: brushing teeth, making the bed, walking past a bench) through 5 (notable: a new acquaintance, a disagreement at work) to 10 (life-changing: a break-up, a death in the family, winning an election).",
      ...asks
        ? [
          "Earlier memories are numbered from 1. For each event, give the number of the earlier memory it updates — the same fact, changed since (moved, a new job, now closed, a new price, full again), so the earlier one is no longer true — or 0 when it updates none. Merely related facts are 0.",
          VALENCE_RULE,
          `Answer with JSON {"scores": [...], "supersedes": [...], "valence": [...]} holding exactly ${n} numbers each, one per event, in the order given.`,
        ]
        : [
          VALENCE_RULE,
          `Answer with JSON {"scores": [...], "valence": [...]} holding exactly ${n} numbers each, one per event, in the order given.`,
        ],
    ],
    user: [
      [
        `Character: ${inertJson(input.agentName)}`,
        dataSection("Events, in order", "events", input.observations),
        ...asks ? [dataSection("Earlier memories, numbered from 1", "earlier", earlier)] : [],
      ].join("\n"),
    ],
  });
}
