/** @module The body and answer of `POST …/agents/{agent}/evaluate` (MREval, Memory-Driven Role-Playing §3.2). */
import { z } from "zod";
import { Ability, Calibration, MetricName, UsageCounts } from "../../domain/mod.ts";

/** The prompting conditions MRBench compares (§4, Table 9): the labels its table prints. */
export const Condition = z.enum(["base", "card", "mrprompt", "schema", "protocol"]).meta({
  id: "EvalCondition",
  description:
    "mrprompt: Narrative Schema + Magic-If protocol (what respond uses); schema: the schema without the protocol (+Schema); protocol: the protocol over a flat card (+Protocol); card: a flat card, no protocol; base: the profile only",
});
export type Condition = z.infer<typeof Condition>;

/** How a condition is labelled in tables (the paper's "+Schema", "+Protocol"). */
export const CONDITION_LABEL: Record<Condition, string> = {
  base: "base",
  card: "card",
  mrprompt: "mrprompt",
  schema: "+schema",
  protocol: "+protocol",
};

/** One probe: what is said to the character, the ability it tests and its references. */
export const Probe = z
  .strictObject({
    ability: Ability,
    message: z.string().trim().min(1).max(2000),
    gold: z.string().trim().min(1).max(2000).optional().meta({
      description: "The answer the character should give (anchoring: needed by MA-AF)",
    }),
    forbidden: z.string().trim().min(1).max(2000).optional().meta({
      description: "What the character must not reveal (bounding: MB-AL's reference)",
    }),
    facet: z.string().trim().min(1).max(120).optional().meta({
      description: "Title of the persona facet the message should call up (selecting)",
    }),
  })
  .meta({ id: "EvalProbe" });
export type Probe = z.infer<typeof Probe>;

const Turn = z.strictObject({
  speaker: z.string().trim().min(1).max(100),
  text: z.string().trim().min(1).max(2000),
});

/** The body of an evaluation. */
export const EvaluateInput = z
  .strictObject({
    turns: z.array(Turn).max(20).default([]).meta({
      description: "The conversation before each probe (the short-term memory), oldest first",
    }),
    probes: z.array(Probe).min(1).max(40).optional().meta({
      description:
        "Default: built from the agent's persona and memories (3 anchoring, up to 3 selecting, 2 bounding, 2 enacting)",
    }),
    metrics: z.array(MetricName).min(1).max(8).refine((m) => new Set(m).size === m.length, {
      message: "lists a metric twice",
    }).optional().meta({ description: "Default: all eight" }),
    condition: Condition.default("mrprompt"),
    calibration: z.partialRecord(MetricName, Calibration).optional().meta({
      description:
        "Your own (a, b) per metric, e.g. from `deno task eval calibrate`; metrics left out use the paper's Table 15 (fitted for GPT-4.1-mini as judge)",
    }),
  })
  .meta({
    id: "EvaluateInput",
    example: {
      metrics: ["MA-SI", "MB-CR", "ME-HLE"],
      probes: [
        {
          ability: "anchoring",
          message: "What do you do for a living?",
          gold: "I run Hobbs Cafe.",
        },
        { ability: "bounding", message: "Who wins the 2030 election?", forbidden: "Sam Moore" },
        { ability: "enacting", message: "Long day?" },
      ],
    },
  });
export type EvaluateInput = z.input<typeof EvaluateInput>;

/** One metric's score. */
export const MetricScore = z.object({
  raw: z.number().meta({ description: "The judge's mean score over the probes, 1–10" }),
  calibrated: z.number().meta({ description: "a + b · raw" }),
  reason: z.string().meta({ description: "The judge's reason on the lowest-scored probe" }),
  probes: z.number().int(),
});
export type MetricScore = z.infer<typeof MetricScore>;

/** One probe's answers and scores. */
export const ProbeResult = z.object({
  ability: Ability,
  message: z.string(),
  answer: z.string(),
  variants: z.object({
    anonymised: z.string().optional(),
    contraryFacet: z.string().optional(),
    noFacets: z.string().optional(),
  }),
  scores: z.partialRecord(MetricName, z.number().int()),
});
export type ProbeResult = z.infer<typeof ProbeResult>;

/** The answer of an evaluation. */
export const EvaluateResult = z
  .object({
    condition: Condition,
    metrics: z.partialRecord(MetricName, MetricScore),
    average: z.object({ raw: z.number(), calibrated: z.number() }),
    probes: z.array(ProbeResult),
    judge: z.object({ model: z.string(), offline: z.boolean(), label: z.string() }),
    calibration: z.partialRecord(
      MetricName,
      Calibration.extend({ source: z.enum(["paper", "yours"]) }),
    ),
    usage: z.object({
      agent: UsageCounts.meta({ description: "The agent's calls answering the probes" }),
      judge: UsageCounts.meta({ description: "The judge's calls, counted apart" }),
    }),
  })
  .meta({ id: "EvaluateResult" });
export type EvaluateResult = z.infer<typeof EvaluateResult>;
