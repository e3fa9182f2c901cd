/**
 * @module A game's side of a conversation with a player: send the player's line and get the
 * agents' lines that follow, or end it. One transaction over the participants each.
 */
import { z } from "zod";
import {
  addMinutes,
  AgentId,
  ConflictError,
  type Conversation,
  ConversationLine,
  conversationNotFound,
  gameMinutes,
  isPlayer,
  SimulacraError,
  UsageCounts,
  type WorldId,
} from "../domain/mod.ts";
import type { Deps } from "../ports/mod.ts";
import { requireDocument } from "../ports/mod.ts";
import {
  answerPlayer,
  closeTalk,
  conversationKey,
  type OpenTalk,
  type PlayerTurn,
  timedOut,
} from "./cognition/mod.ts";
import { type AgentsTransaction, withAgents } from "./transaction.ts";

/** The body of `POST /v1/worlds/{world}/conversations/{conversation}/lines`. */
export const PlayerLineInput = z
  .strictObject({
    speaker: AgentId.optional().meta({
      description:
        "The player saying it (a participant of kind player); a key bound to a player may leave it out",
    }),
    text: z.string().trim().min(1).max(2000),
  })
  .meta({ id: "PlayerLineInput", example: { speaker: "ada", text: "Hello Isabella! A party?" } });
export type PlayerLineInput = z.infer<typeof PlayerLineInput>;

/** What a player's line (or ending) brought. */
export const PlayerTurnResult = z
  .object({
    conversationId: z.string(),
    lines: z.array(ConversationLine.pick({ speaker: true, name: true, text: true, at: true }))
      .meta({ description: "The agents' lines after the player's, in order" }),
    open: z.boolean().meta({ description: "False once the conversation closed" }),
    endedBy: z.string(),
    usage: UsageCounts,
  })
  .meta({ id: "PlayerTurnResult" });
export type PlayerTurnResult = z.infer<typeof PlayerTurnResult>;

/**
 * The player's line in an open conversation, and the agents' lines that follow (see
 * `answerPlayer`). A conversation that waited longer than the world's `playerReplyMinutes`
 * closes as `timeout` and the line is refused.
 * @throws `not_found`, `forbidden` (the speaker is not a player of the conversation),
 * `conflict` (closed, timed out, or a participant stayed busy), `model_*`, `store_unavailable`.
 */
export async function sendPlayerLine(
  deps: Deps,
  { worldId, conversationId }: { worldId: WorldId; conversationId: string },
  input: PlayerLineInput & { speaker: AgentId },
): Promise<PlayerTurnResult> {
  return await onOpenTalk(deps, { worldId, conversationId }, async (tx, talk) => {
    const speaker = talk.people.find((p) => p.id === input.speaker);
    if (speaker === undefined || !isPlayer(speaker)) {
      throw new SimulacraError(
        "forbidden",
        `Cannot send a line as "${input.speaker}" in conversation "${conversationId}": only a player taking part in it (${
          talk.people.filter(isPlayer).map((p) => p.id).join(", ")
        }) may`,
        { details: { speaker: input.speaker } },
      );
    }
    // The world clock, but never before the conversation started or its last line was said.
    const last = talk.conversation.lines.at(-1)?.at;
    const earliest = last === undefined ? talk.conversation.startedAt : addMinutes(last, 1);
    const now = tx.world.clock.now;
    const at = gameMinutes(now) > gameMinutes(earliest) ? now : earliest;
    return turnResult(await answerPlayer(deps, talk, { speaker, text: input.text, at }));
  });
}

/**
 * Ends an open conversation (`endedBy: ended`): the agents remember it and re-plan.
 * @throws `not_found`, `conflict` (closed already), `store_unavailable`.
 */
export async function endPlayerConversation(
  deps: Deps,
  { worldId, conversationId }: { worldId: WorldId; conversationId: string },
): Promise<PlayerTurnResult> {
  return await onOpenTalk(
    deps,
    { worldId, conversationId },
    async (_tx, talk) => turnResult(await closeTalk(deps, talk, { endedBy: "ended" })),
  );
}

function turnResult(turn: PlayerTurn): PlayerTurnResult {
  const { conversation } = turn;
  return {
    conversationId: conversation.id,
    lines: turn.lines,
    open: conversation.open === true,
    endedBy: conversation.endedBy,
    usage: turn.usage,
  };
}

/**
 * Runs `work` on an open conversation, holding every participant's lease. One that timed out
 * is closed (its memories written) and refused.
 */
async function onOpenTalk<T>(
  deps: Deps,
  { worldId, conversationId }: { worldId: WorldId; conversationId: string },
  work: (tx: AgentsTransaction, talk: OpenTalk) => Promise<T>,
): Promise<T> {
  const key = conversationKey(worldId, conversationId);
  const read = await requireDocument<Conversation>(
    deps.storage.documents,
    key,
    () => conversationNotFound(worldId, conversationId),
  );
  const scopes = read.value.participants.map((agentId) => ({ worldId, agentId }));
  type Outcome = { closed: Conversation } | { done: T };
  const outcome = await withAgents<Outcome>(deps, { scopes, documents: [key] }, async (tx) => {
    const stored = await tx.storage.documents.get<Conversation>(key);
    const conversation = stored!.value;
    if (conversation.open !== true) return { closed: conversation };
    const talk: OpenTalk = {
      world: tx.world,
      conversation,
      people: tx.agents,
      fences: new Map(tx.agents.map((a, i) => [a.id, tx.leases[i]])),
    };
    if (timedOut(tx.world, conversation, tx.world.clock.now)) {
      return { closed: (await closeTalk(deps, talk, { endedBy: "timeout" })).conversation };
    }
    return { done: await work(tx, talk) };
  });
  if ("done" in outcome) return outcome.done;
  throw new ConflictError(
    `Cannot continue conversation "${conversationId}": it is closed (endedBy ${outcome.closed.endedBy})`,
    { details: { conversationId, endedBy: outcome.closed.endedBy } },
  );
}
