/** @module The offline model's built-in responders, one per prompt kind (files in responders/). */
import type { OfflineResponder } from "./offline_language_model.ts";
import { answerActions } from "./responders/actions.ts";
import { answerAgentSummary } from "./responders/agent_summary.ts";
import { answerDayPlan } from "./responders/day_plan.ts";
import { answerDialogueLine } from "./responders/dialogue_line.ts";
import { answerHourPlan } from "./responders/hour_plan.ts";
import { answerImportance } from "./responders/importance.ts";
import { answerObjectState } from "./responders/object_state.ts";
import { answerPersonaBuild } from "./responders/persona_build.ts";
import { answerReaction } from "./responders/reaction.ts";
import { answerReflectionInsights } from "./responders/reflection_insights.ts";
import { answerReflectionQuestions } from "./responders/reflection_questions.ts";
import { answerRespond } from "./responders/respond.ts";

/** Every built-in responder by prompt kind. Add one line per new prompt kind. */
export const OFFLINE_RESPONDERS: ReadonlyMap<string, OfflineResponder> = new Map<
  string,
  OfflineResponder
>([
  ["importance", answerImportance],
  ["agent_summary", answerAgentSummary],
  ["day_plan", answerDayPlan],
  ["hour_plan", answerHourPlan],
  ["actions", answerActions],
  ["reaction", answerReaction],
  ["dialogue_line", answerDialogueLine],
  ["reflection_questions", answerReflectionQuestions],
  ["reflection_insights", answerReflectionInsights],
  ["persona_build", answerPersonaBuild],
  ["respond", answerRespond],
  ["object_state", answerObjectState],
]);
