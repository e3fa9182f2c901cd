/** @module Derive a persona from an agent's description and memories, or from a narrative or card (Memory-Driven Role-Playing §3.3). */
import type { Deps } from "../ports/mod.ts";
import {
  type Agent,
  buildPersonaBuildPrompt,
  ModelUnavailableError,
  Persona,
  type PersonaBuildCard,
  type PersonaBuildOutput,
  type Usage,
} from "../domain/mod.ts";
import { completeIn } from "./_complete.ts";

/** What a persona is derived from. `card` carries a card's personality, scenario and sample dialogue (never its creator notes). */
export interface PersonaSources {
  memories: string[];
  narrative: string | null;
  card: PersonaBuildCard | null;
}

/**
 * The model's persona, made valid: trimmed, defaults applied, duplicate facet titles renamed.
 * @throws `model_invalid_output` when it still breaks the schema (e.g. blank titles).
 */
export function personaFromOutput(out: PersonaBuildOutput): Persona {
  const seen = new Map<string, number>();
  const facets = out.scene_facets.map((f) => {
    const key = f.title.trim().toLowerCase();
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n === 1 ? f : { ...f, title: `${f.title.trim().slice(0, 110)} (${n})` };
  });
  const parsed = Persona.safeParse({ ...out, scene_facets: facets });
  if (!parsed.success) {
    throw new ModelUnavailableError(
      "model_invalid_output",
      `Cannot use the persona the model wrote: ${
        parsed.error.issues[0]?.message ?? "it is invalid"
      }: retry`,
      { details: { issues: parsed.error.issues.map((i) => i.path.join(".")) } },
    );
  }
  return parsed.data;
}

/**
 * One main-model call (operation `persona_build`) that derives a persona.
 * @throws `model_*` when the model fails.
 */
export async function derivePersona(
  agent: Agent,
  sources: PersonaSources,
  models: Pick<Deps, "model">,
): Promise<{ persona: Persona; usage: Usage }> {
  const { value, usage } = await completeIn(models, { worldId: agent.worldId, agentId: agent.id }, {
    prompt: buildPersonaBuildPrompt({
      agentName: agent.name,
      description: agent.description,
      traits: agent.traits,
      memories: sources.memories,
      narrative: sources.narrative,
      card: sources.card,
    }),
    operation: "persona_build",
  });
  return { persona: personaFromOutput(value), usage };
}
