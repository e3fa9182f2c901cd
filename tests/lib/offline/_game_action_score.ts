/**
 * @module Scores the offline model on the game-action cases: each message answered by the
 * respond responder with the actions registered, its choice checked as respond checks it.
 */
import { answerRespond } from "../../../lib/offline/responders/respond.ts";
import { checkProposedActions, type RespondPromptInput } from "../../../src/domain/mod.ts";
import { type ActionCase, REGISTERED } from "./_game_action_cases.ts";

/** A shopkeeper's chat turn asking `message`, with `gameActions` offered (default: none). */
export function shopTurn(
  message: string,
  gameActions?: RespondPromptInput["gameActions"],
): RespondPromptInput {
  return {
    agentName: "Mira Lund",
    mode: "chat",
    speaker: { name: "A traveller", description: null },
    now: "2023-02-13T10:00:00",
    anchor: {
      summary: "Mira Lund keeps the lantern shop on the harbour.",
      nickname: "",
      globalSummary: "",
      coreTraits: [],
      relationships: [],
    },
    facets: [],
    memories: [],
    plan: [],
    cardNotes: [],
    history: [],
    message,
    boundaryHints: [],
    disclosure: false,
    ...(gameActions ? { gameActions } : {}),
  };
}

function ask(message: string) {
  const input = shopTurn(message, REGISTERED);
  let n = 0;
  const answer = answerRespond(input);
  return checkProposedActions(REGISTERED, answer.game_actions ?? [], { ids: () => `act_${n++}` });
}

/** Whether the message got the expected action with valid arguments holding the expected ones. */
function right(c: ActionCase): boolean {
  const [action] = ask(c.message).actions;
  return action !== undefined && action.name === c.name &&
    Object.entries(c.arguments).every(([k, v]) => action.arguments[k] === v);
}

/**
 * The score on a set: right actions among the requests that should act, and messages that got
 * no action among those that should not.
 */
export function scoreGameActions(set: { act: readonly ActionCase[]; quiet: readonly string[] }): {
  acted: { right: number; of: number; misses: string[] };
  quiet: { right: number; of: number; misses: string[] };
} {
  const misses = set.act.filter((c) => !right(c)).map((c) => c.message);
  const loud = set.quiet.filter((m) => {
    const got = ask(m);
    return got.actions.length > 0 || got.dropped.length > 0;
  });
  return {
    acted: { right: set.act.length - misses.length, of: set.act.length, misses },
    quiet: { right: set.quiet.length - loud.length, of: set.quiet.length, misses: loud },
  };
}
