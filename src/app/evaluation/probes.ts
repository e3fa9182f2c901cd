/** @module The default probes of an evaluation, built from the agent's persona and memories, and the checks a set of probes must pass before any model call. */
import {
  type Agent,
  type MemoryRecord,
  METRIC_ABILITY,
  type MetricName,
  type Persona,
  SimulacraError,
} from "../../domain/mod.ts";
import type { Probe } from "./evaluate_schema.ts";

/** Memories the enacting probes are drawn from: observations and chats, newest first. */
function talkedAbout(memories: readonly MemoryRecord[]): MemoryRecord[] {
  return memories.filter((m) => m.kind === "observation" || m.kind === "chat");
}

/**
 * Ten probes at most: anchoring (who the character is, what matters to it, someone it knows),
 * selecting (one per facet, up to three, said in the facet's cue phrases), bounding (the future
 * and a world it cannot know) and enacting (small talk, and something it remembers).
 */
export function defaultProbes(
  agent: Agent,
  persona: Persona | null,
  memories: readonly MemoryRecord[],
): Probe[] {
  const traits = persona?.core_traits.map((t) => t.trait) ?? agent.traits;
  const known = persona?.relationships[0];
  const anchoring: Probe[] = [
    {
      ability: "anchoring",
      message: "Tell me about yourself: who are you, and what do you do?",
      gold: persona?.global_summary || agent.description || agent.name,
    },
    {
      ability: "anchoring",
      message: "How would your friends describe you?",
      gold: traits.length > 0 ? `They would say I am ${traits.join(", ")}.` : agent.description,
    },
  ];
  if (known) {
    anchoring.push({
      ability: "anchoring",
      message: `What do you think of ${known.name}?`,
      gold: [known.relationship, known.attitude].filter((s) => s !== "").join("; ") ||
        `${known.name} is someone I know.`,
    });
  }
  const selecting: Probe[] = (persona?.scene_facets ?? []).slice(0, 3).map((f) => ({
    ability: "selecting",
    message: f.cue_phrases.length > 0
      ? `I wanted to ask you about ${f.cue_phrases.slice(0, 2).join(" and ")}. How are things?`
      : `${f.situation}: what do you do?`,
    facet: f.title,
  }));
  const bounding: Probe[] = [
    {
      ability: "bounding",
      message: "Who will win the election ten years from now, and by how many votes?",
    },
    {
      ability: "bounding",
      message: "What did you think of the moon colony's first mayor?",
    },
  ];
  const memory = talkedAbout(memories)[0];
  const enacting: Probe[] = [
    { ability: "enacting", message: "Long day? How are you holding up?" },
    {
      ability: "enacting",
      message: memory
        ? "What's the most interesting thing that happened to you lately?"
        : "What are you looking forward to this week?",
    },
  ];
  return [...anchoring, ...selecting, ...bounding, ...enacting];
}

function unprocessable(message: string, details: Record<string, unknown>): SimulacraError {
  return new SimulacraError("unprocessable", message, { details });
}

/**
 * Refuses, before any model call, an evaluation that cannot score what it asks: a metric with
 * no probe of its ability, MA-AF without gold answers, MS metrics without a persona of two or
 * more facets, or a probe naming a facet the persona lacks.
 * @throws `unprocessable` (422) naming the metric or probe.
 */
export function checkEvaluable(
  probes: readonly Probe[],
  metrics: readonly MetricName[],
  persona: Persona | null,
): void {
  for (const metric of metrics) {
    const ability = METRIC_ABILITY[metric];
    if (!probes.some((p) => p.ability === ability)) {
      throw unprocessable(
        `Cannot score ${metric}: no probe tests ${ability}: add a probe with "ability": "${ability}", or leave ${metric} out of "metrics"`,
        { metric, ability },
      );
    }
  }
  if (metrics.includes("MA-AF")) {
    const index = probes.findIndex((p) => p.ability === "anchoring" && p.gold === undefined);
    if (index !== -1) {
      throw unprocessable(
        `Cannot score MA-AF: anchoring probe ${index} has no "gold" answer to compare with: add one, or leave MA-AF out`,
        { metric: "MA-AF", index },
      );
    }
  }
  const needsFacets = metrics.filter((m) => m === "MS-FA" || m === "MS-FU");
  if (needsFacets.length > 0 && (persona === null || persona.scene_facets.length < 2)) {
    throw unprocessable(
      `Cannot score ${
        needsFacets.join(" and ")
      }: they compare the right scene facet with a contrary one, and the agent has ${
        persona === null ? "no persona" : "one facet"
      }: give it a persona with two or more scene_facets (PUT …/persona), or leave them out`,
      { metrics: needsFacets },
    );
  }
  const titles = new Set(persona?.scene_facets.map((f) => f.title.toLowerCase()) ?? []);
  const unknown = probes.findIndex((p) =>
    p.facet !== undefined && !titles.has(p.facet.toLowerCase())
  );
  if (unknown !== -1) {
    throw unprocessable(
      `Cannot use probe ${unknown}: its facet "${
        probes[unknown].facet
      }" is not one of the persona's scene facets`,
      { index: unknown, facets: [...titles] },
    );
  }
}
