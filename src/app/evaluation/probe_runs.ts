/** @module One probe answered by the agent under a condition, with the variants its metrics compare (anonymised, contrary facet, no facets). */
import {
  addUsage,
  type Attribution,
  facetView,
  formatReply,
  type MetricName,
  type Persona,
  type RespondPromptInput,
  type Usage,
} from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { completeReply } from "../../mind/mod.ts";
import type { Condition, Probe } from "./evaluate_schema.ts";
import {
  anonymisedInput,
  conditionPrompt,
  contraryFacetInput,
  facetLine,
  noFacetInput,
} from "./variants.ts";

/** A probe's prompt input and what the persona's facet ranking said about it. */
export interface PreparedProbe {
  probe: Probe;
  /** The respond prompt's input for the probe, as a reply would send it. */
  input: RespondPromptInput;
  persona: Persona | null;
  /** The persona's facets ranked for the probe, best first. */
  ranking: readonly { index: number }[];
}

/** The answers of one probe and what the judge needs beside them. */
export interface ProbeRun {
  probe: Probe;
  character: { name: string; profile: string };
  answer: string;
  anonymised?: { text: string; character: { name: string; profile: string } };
  contraryFacet?: string;
  noFacets?: string;
  /** The facet the probe should call up, in one line (selecting probes). */
  facet: string | null;
  /** The memories and conversation the answer had, for ME-MAC. */
  context: string;
}

function expectedFacet(p: PreparedProbe): string | null {
  const named = p.probe.facet?.toLowerCase();
  const facet = named === undefined
    ? p.input.facets[0]
    : p.persona?.scene_facets.map(facetView).find((f) => f.title.toLowerCase() === named);
  return facet ? facetLine(facet) : null;
}

/**
 * Answers a probe under `condition`, plus the variants the requested metrics compare: one agent
 * call each. The condition applies after the variant (a flat card of the contrary facet).
 * @throws `model_*`.
 */
export async function runProbe(
  deps: Pick<Deps, "model">,
  prepared: PreparedProbe,
  options: { condition: Condition; metrics: readonly MetricName[]; attribution: Attribution },
): Promise<{ run: ProbeRun; usage: Usage }> {
  const { probe, input, persona } = prepared;
  const wants = (m: MetricName) => options.metrics.includes(m);
  const usages: Usage[] = [];
  const answer = async (variant: RespondPromptInput) => {
    const completion = await completeReply(deps, conditionPrompt(variant, options.condition), {
      attribution: options.attribution,
      agentName: variant.agentName,
    });
    usages.push(completion.usage);
    // The whole turn, as the paper's outputs are: (actions) words [thoughts], without the name.
    return formatReply(variant.agentName, completion.value).slice(variant.agentName.length + 1)
      .trim();
  };
  const selecting = probe.ability === "selecting" && persona !== null;
  const anon = probe.ability === "anchoring" && (wants("MA-SI") || wants("MA-AF"))
    ? anonymisedInput(input, persona)
    : null;
  const [main, anonymised, contrary, none] = await Promise.all([
    answer(input),
    anon ? answer(anon) : undefined,
    selecting && wants("MS-FA") && persona.scene_facets.length > 1
      ? answer(contraryFacetInput(input, persona, prepared.ranking))
      : undefined,
    selecting && wants("MS-FU") ? answer(noFacetInput(input)) : undefined,
  ]);
  const run: ProbeRun = {
    probe,
    character: { name: input.agentName, profile: input.anchor.summary },
    answer: main,
    ...(anon && anonymised !== undefined
      ? {
        anonymised: {
          text: anonymised,
          character: { name: anon.agentName, profile: anon.anchor.summary },
        },
      }
      : {}),
    ...(contrary !== undefined ? { contraryFacet: contrary } : {}),
    ...(none !== undefined ? { noFacets: none } : {}),
    facet: expectedFacet(prepared),
    context: [
      ...input.memories.map((m) => m.text),
      ...input.history.map((t) => `${t.speaker}: ${t.text}`),
    ].join("\n"),
  };
  return { run, usage: addUsage(...usages) };
}
