/** @module The offline model's built-in responders, one per prompt kind (files in responders/). */
import type { Prompt } from "../../src/ports/mod.ts";
import { answerActions } from "./responders/actions.ts";
import { answerAgentSummary } from "./responders/agent_summary.ts";
import { answerDayPlan } from "./responders/day_plan.ts";
import { answerDialogueLine } from "./responders/dialogue_line.ts";
import { answerImportance } from "./responders/importance.ts";
import { answerItemPlan } from "./responders/item_plan.ts";
import { answerObjectState } from "./responders/object_state.ts";
import { answerPersonaBuild } from "./responders/persona_build.ts";
import { answerReaction } from "./responders/reaction.ts";
import { answerReflectionInsights } from "./responders/reflection_insights.ts";
import { answerReflectionQuestions } from "./responders/reflection_questions.ts";
import { answerRespond } from "./responders/respond.ts";
import { rateValence } from "./valence_lexicon.ts";

/**
 * Answers one prompt kind offline from the prompt's structured `input`. The answer is validated
 * against the prompt's schema, so it may be the schema's input form (before defaults). `key`
 * names the call's context for choices between phrasings: the world's seed (else the world
 * id), the agent and the prompt kind; a responder adds the game time and what it is about, so
 * a choice never depends on when or in which order calls arrive.
 */
export type OfflineResponder = (input: unknown, prompt: Prompt<unknown>, key: string) => unknown;

/** Every built-in responder by prompt kind. Add one line per new prompt kind. */
export const OFFLINE_RESPONDERS: ReadonlyMap<string, OfflineResponder> = new Map<
  string,
  OfflineResponder
>([
  ["importance", answerImportance],
  ["agent_summary", answerAgentSummary],
  ["day_plan", answerDayPlan],
  ["item_plan", answerItemPlan],
  ["actions", answerActions],
  ["reaction", answerReaction],
  ["dialogue_line", answerDialogueLine],
  ["reflection_questions", answerReflectionQuestions],
  ["reflection_insights", answerReflectionInsights],
  ["persona_build", answerPersonaBuild],
  // How the message felt rides on the reply (issue 22: relationships at no extra call).
  ["respond", (input) => ({
    ...answerRespond(input),
    valence: rateValence(String((input as { message?: unknown }).message ?? "")),
  })],
  // The baseline MRBench compares against takes the same input.
  ["respond_plain", answerRespond],
  ["object_state", answerObjectState],
]);
