/**
 * @module The variants of one reply prompt MREval compares (anonymised persona, contrary facet,
 * no facets) and the prompting conditions MRBench ablates (base, card, schema, protocol): pure
 * transforms of the respond prompt's input.
 */
import {
  anonymiseDeep,
  buildRespondPlainPrompt,
  buildRespondPrompt,
  facetView,
  type IdentityCues,
  type Persona,
  type Prompt,
  type RespondFacet,
  type RespondPromptInput,
  type RespondPromptOutput,
} from "../../domain/mod.ts";
import type { Condition } from "./evaluate_schema.ts";

/** The names and identity cues of a character, for its anonymised counterpart. */
export function identityCues(input: RespondPromptInput, persona: Persona | null): IdentityCues {
  return {
    name: input.agentName,
    nickname: persona?.nickname || input.anchor.nickname || undefined,
    others: (persona?.relationships ?? input.anchor.relationships).map((r) => r.name),
    places: [input.anchor.home, input.anchor.workplace].filter((p): p is string => !!p),
  };
}

/**
 * The anonymised counterpart (MA-SI, MA-AF): every name and identity cue in the profile, facets,
 * memories and conversation replaced; the character is called "the character".
 */
export function anonymisedInput(
  input: RespondPromptInput,
  persona: Persona | null,
): RespondPromptInput {
  const { mode, now, disclosure } = input;
  return { ...anonymiseDeep(input, identityCues(input, persona)), mode, now, disclosure };
}

/**
 * The counterfactual facet (MS-FA): the persona's facets ranked last for the message instead of
 * those selected, as many as were selected.
 */
export function contraryFacetInput(
  input: RespondPromptInput,
  persona: Persona,
  ranking: readonly { index: number }[],
): RespondPromptInput {
  const count = Math.max(1, input.facets.length);
  const contrary = [...ranking].reverse().slice(0, count).map((r) =>
    facetView(persona.scene_facets[r.index])
  );
  return { ...input, facets: contrary };
}

/** The scene-ablated input (MS-FU): no facets. */
export function noFacetInput(input: RespondPromptInput): RespondPromptInput {
  return { ...input, facets: [] };
}

/** A facet in one line, for the judge and for flat cards. */
export function facetLine(f: RespondFacet): string {
  return [f.title, f.situation, f.behavior_pattern, f.emotional_state].filter((s) => s !== "")
    .join(": ");
}

/** The persona as a flat card: traits, background, relationships and facets as profile text. */
function cardInput(input: RespondPromptInput): RespondPromptInput {
  const a = input.anchor;
  const lines = [
    a.summary,
    a.coreTraits.length > 0
      ? `Personality: ${
        a.coreTraits.map((t) => (t.desc ? `${t.trait} (${t.desc})` : t.trait)).join("; ")
      }`
      : "",
    a.relationships.length > 0
      ? `Knows: ${a.relationships.map((r) => `${r.name}, ${r.relationship}`).join("; ")}`
      : "",
    ...input.facets.map((f) => `When ${facetLine(f)}`),
  ].filter((l) => l !== "");
  return {
    ...input,
    anchor: { ...a, summary: lines.join("\n"), coreTraits: [], relationships: [] },
    facets: [],
  };
}

/** The profile's first line (identity) only: no schema, card or background. */
function baseInput(input: RespondPromptInput): RespondPromptInput {
  return {
    ...input,
    anchor: {
      summary: input.anchor.summary.split("\n")[0],
      nickname: "",
      globalSummary: "",
      coreTraits: [],
      relationships: [],
    },
    facets: [],
    cardNotes: [],
  };
}

/**
 * The prompt of a condition: `mrprompt` is the respond prompt as replies use it; without the
 * protocol (`base`, `card`, `schema`) a plain role-play prompt with no boundary check; without
 * the schema (`base`, `card`, `protocol`) the persona flattened into the profile.
 */
export function conditionPrompt(
  input: RespondPromptInput,
  condition: Condition,
): Prompt<RespondPromptOutput> {
  const plain = (i: RespondPromptInput) => buildRespondPlainPrompt({ ...i, boundaryHints: [] });
  switch (condition) {
    case "mrprompt":
      return buildRespondPrompt(input);
    case "schema":
      return plain(input);
    case "protocol":
      return buildRespondPrompt(cardInput(input));
    case "card":
      return plain(cardInput(input));
    case "base":
      return plain(baseInput(input));
  }
}
