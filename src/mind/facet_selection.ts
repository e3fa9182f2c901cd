/** @module Select: rank a persona's scene facets against the recent dialogue (Memory-Driven Role-Playing §3.3, beyond the paper). */
import type { Deps } from "../ports/mod.ts";
import {
  type Attribution,
  cueScore,
  emptyUsage,
  type Persona,
  type SceneFacet,
  type Usage,
} from "../domain/mod.ts";

/** One facet's score against the dialogue, explained. */
export interface FacetScore {
  /** Position in `persona.scene_facets`. */
  index: number;
  title: string;
  /** `relevance + cue`, in [-1, 2]. */
  score: number;
  /** Cosine of the facet's situation and cue phrases with the dialogue. */
  relevance: number;
  /** Cue-phrase match in [0, 1]: the new message counts fully, earlier turns half. */
  cue: number;
  /** Cue phrases found word for word in the dialogue. */
  matched: string[];
}

/** The dialogue a facet is scored against: earlier turns and the new message. */
export interface DialogueCues {
  /** Recent earlier turns as text, oldest first (may be empty). */
  history: string;
  message: string;
}

/** The text of a facet that gets embedded: its title, situation and cue phrases. */
export function facetText(facet: SceneFacet): string {
  const cues = facet.cue_phrases.length > 0 ? ` Cues: ${facet.cue_phrases.join(", ")}.` : "";
  return `${facet.title}. ${facet.situation}.${cues}`;
}

/** The text a dialogue is embedded as (and recalled with): earlier turns, then the message. */
export function dialogueText(cues: DialogueCues): string {
  return cues.history.length > 0 ? `${cues.history}\n${cues.message}` : cues.message;
}

/**
 * Scores facets, best first (ties keep persona order): cosine of the facet text with the
 * dialogue plus the cue-phrase match. Cue words said now outweigh a vague embedding likeness,
 * which matters with weak embedders; the cosine orders facets nobody cued.
 */
export function rankFacets(
  facets: readonly SceneFacet[],
  cues: DialogueCues,
  relevance: readonly number[],
): FacetScore[] {
  return facets
    .map((facet, index) => {
      const now = cueScore(cues.message, facet.cue_phrases);
      const before = cueScore(cues.history, facet.cue_phrases);
      const cue = Math.max(now.score, before.score / 2);
      const rel = relevance[index] ?? 0;
      return {
        index,
        title: facet.title,
        score: round(rel + cue),
        relevance: round(rel),
        cue: round(cue),
        matched: [...new Set([...now.matched, ...before.matched])],
      };
    })
    .sort((a, b) => b.score - a.score || a.index - b.index);
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** What {@linkcode embedDialogue} returns. */
export interface EmbeddedDialogue {
  /** One vector per query, in order. */
  queries: Float32Array[];
  /** Cosine of each query (rows) with each facet (columns). */
  relevance: number[][];
  usage: Usage;
}

/**
 * Embeds queries and the persona's facet texts in one call and returns the cosines. Facet texts
 * repeat across replies, so the service's embedding cache serves them after the first time.
 */
export async function embedDialogue(
  deps: Pick<Deps, "embedder">,
  { persona, queries }: { persona: Persona | null; queries: readonly string[] },
  attribution: Attribution,
): Promise<EmbeddedDialogue> {
  const texts = [...queries, ...(persona?.scene_facets.map(facetText) ?? [])];
  if (texts.length === 0) return { queries: [], relevance: [], usage: emptyUsage() };
  const { vectors, usage } = await deps.embedder.embed(texts, attribution);
  const q = vectors.slice(0, queries.length);
  const f = vectors.slice(queries.length);
  return { queries: q, relevance: q.map((v) => f.map((fv) => dot(v, fv))), usage };
}

/** Options for {@linkcode selectFacets}. */
export interface SelectFacetsOptions {
  /** How many facets go into the prompt. @default 2 */
  top?: number;
}

/** The facets a reply uses, and the whole ranking for the `select` stage. */
export interface FacetSelection {
  ranking: FacetScore[];
  selected: SceneFacet[];
  scores: FacetScore[];
}

/**
 * Picks the top facets of a ranking by the dialogue's cues and each facet's `relevance` (none
 * when the persona has none).
 */
export function selectFacets(
  persona: Persona | null,
  { cues, relevance }: { cues: DialogueCues; relevance: readonly number[] },
  options: SelectFacetsOptions = {},
): FacetSelection {
  if (!persona) return { ranking: [], selected: [], scores: [] };
  const ranking = rankFacets(persona.scene_facets, cues, relevance);
  const scores = ranking.slice(0, options.top ?? 2);
  return { ranking, selected: scores.map((s) => persona.scene_facets[s.index]), scores };
}
