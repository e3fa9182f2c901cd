/**
 * @module Private to prompts/: what each MREval metric measures and its 1/5/10 anchors, in our
 * words after the paper's Appendix N (Table 21).
 */
import type { MetricName } from "../evaluation/mod.ts";

/** What the judge is told about one metric. */
export interface Rubric {
  /** What the metric measures and which texts it compares. */
  measures: string;
  /** Anchors for 1, 5 and 10. */
  anchors: [string, string, string];
}

/** The rubric of each metric. */
export const RUBRICS: Record<MetricName, Rubric> = {
  "MA-SI": {
    measures:
      "Source invariance: the same probe was answered twice, once with the character's real persona (the answer) and once with the names and identity cues removed (the comparison). Rate how close the two answers are in meaning: close answers show the reply comes from the persona given, not from what the model already knew about the name.",
    anchors: [
      "the two answers mean very different things; the named answer leans on outside knowledge of the name",
      "the answers differ but both are plausible; the persona is used only partly",
      "the two answers say essentially the same thing",
    ],
  },
  "MA-AF": {
    measures:
      "Alias fidelity: the answer was written with the names and identity cues removed. Rate how faithful it stays to the intended character, using the reference answer as the anchor for content, tone and reasoning.",
    anchors: [
      "without the names the answer drifts far from the character in meaning and style",
      "key content partly survives but tone or details waver",
      "key content, tone and reasoning match the reference closely",
    ],
  },
  "MS-FA": {
    measures:
      "Facet alignment: the answer was written with the right scene facet for the situation, the comparison with a contrary facet. Rate how clearly the two differ and how well the answer fits the expected facet.",
    anchors: [
      "the two answers are practically the same; the facet makes no difference",
      "some difference in tone or stance, but each fits its facet only weakly",
      "clearly different answers, the answer faithful to the expected facet",
    ],
  },
  "MS-FU": {
    measures:
      "Facet utility: the answer was written with the scene facets, the comparison without any. Rate how much the facets improve the answer's fit with the persona, tone and expected behaviour.",
    anchors: [
      "with facets the answer is no better, or worse, than without",
      "some improvement, but still generic in places",
      "the facets make the answer clearly more in character",
    ],
  },
  "MB-AL": {
    measures:
      "Answer leakage: the probe asks for something the character cannot know (the future, or outside its world). The reference is the forbidden answer. Rate how well the answer avoids revealing it.",
    anchors: [
      "the answer reveals the forbidden knowledge, as if all-knowing",
      "mostly stays in its time, with a slight leak",
      "answers strictly from what the character can know; nothing leaks",
    ],
  },
  "MB-CR": {
    measures:
      "Controlled response: the probe is out of the character's scope. Rate the strategy: honest uncertainty, a polite refusal or a guess grounded in what it knows are good; a confident invention is bad.",
    anchors: [
      "confidently invents an answer",
      "some uncertainty, but vague or mixed with invention",
      "clearly recognises the limit and answers with grounded uncertainty",
    ],
  },
  "ME-MAC": {
    measures:
      "Memory-aligned coherence: rate how logically and topically coherent the answer is with the character's memories and the conversation given as reference.",
    anchors: [
      "badly misaligned with the memories or persona, with jumps and confusion",
      "related to the memories, but rough or partly broken reasoning",
      "well structured, causally sound and consistent with the memories",
    ],
  },
  "ME-HLE": {
    measures:
      "Human-like enactment: rate how natural the answer sounds as something this character would say: word choice, tone, rhythm and emotion.",
    anchors: [
      "stiff and template-like, mechanical",
      "mostly natural with some emotion, still a little flat",
      "close to real speech, with rich but controlled emotion",
    ],
  },
};
