/** @module The offline model's built-in responders, one per prompt kind (files in responders/). */
import type { OfflineResponder } from "./offline_language_model.ts";
import { answerAgentSummary } from "./responders/agent_summary.ts";
import { answerImportance } from "./responders/importance.ts";

/** Every built-in responder by prompt kind. Add one line per new prompt kind. */
export const OFFLINE_RESPONDERS: ReadonlyMap<string, OfflineResponder> = new Map<
  string,
  OfflineResponder
>([
  ["importance", answerImportance],
  ["agent_summary", answerAgentSummary],
]);
