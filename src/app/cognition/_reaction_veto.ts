/** @module The reaction's hard vetoes: what decides without a model call (Generative Agents §4.3). */
import { z } from "zod";
import type { AgentId, AgentMoment, GameTime } from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { isTalking, minutesSinceTalked, readConversationState } from "./conversation_state.ts";

/** Why a reaction was vetoed before any model call. */
export const ReactionVeto = z
  .enum(["asleep", "late_night", "already_talking", "talked_recently"])
  .meta({
    id: "ReactionVeto",
    description:
      "asleep: the observer or the observed agent is sleeping; late_night: 23:00–06:00, no conversations start; already_talking: either is in a conversation; talked_recently: they talked within the world's conversationCooldownMinutes",
  });
export type ReactionVeto = z.infer<typeof ReactionVeto>;

/** The other agent in an observation, with what it is doing. */
export interface ObservedAgent {
  agentId: AgentId;
  name: string;
  /** What it is doing, e.g. "taking a short walk" or "sleeping". */
  status: string;
}

/** "sleeping", "asleep", "going to sleep", "napping": the reference's "is sleeping" test. */
export const SLEEPING = /sleep|\bnap(?:ping)?\b/i;

/**
 * Late night is 23:00 until 06:00 game time: the reference starts no conversations in its
 * 23:00 hour, and most planned days start around 06:00–08:00.
 */
function isLateNight(at: GameTime): boolean {
  const hour = Number(at.slice(11, 13));
  return hour >= 23 || hour < 6;
}

/**
 * The vetoes that need no model and no plan: the clock, the observed agent's status (when
 * known) and both conversation states.
 */
export async function hardVeto(
  deps: Pick<Deps, "storage">,
  { world, agent, at }: AgentMoment,
  observed: (Omit<ObservedAgent, "status"> & { status?: string }) | undefined,
): Promise<{ code: ReactionVeto; reason: string } | null> {
  const veto = (code: ReactionVeto, reason: string) => ({ code, reason });
  if (observed !== undefined) {
    if (isLateNight(at)) {
      return veto("late_night", "It is late at night (23:00–06:00): no conversation starts now");
    }
    if (observed.status !== undefined && SLEEPING.test(observed.status)) {
      return veto("asleep", `${observed.name} is asleep`);
    }
  }
  const mine = await readConversationState(deps, world, agent.id);
  if (isTalking(mine, at)) {
    return veto("already_talking", `${agent.name} is in a conversation until ${mine!.until}`);
  }
  if (observed === undefined) return null;
  const theirs = await readConversationState(deps, world, observed.agentId);
  if (isTalking(theirs, at)) {
    return veto("already_talking", `${observed.name} is in a conversation until ${theirs!.until}`);
  }
  const cooldown = world.settings.conversationCooldownMinutes;
  const since = [
    minutesSinceTalked(mine, observed.agentId, at),
    minutesSinceTalked(theirs, agent.id, at),
  ].filter((m): m is number => m !== null);
  if (since.some((m) => m < cooldown)) {
    return veto(
      "talked_recently",
      `${agent.name} and ${observed.name} talked less than ${cooldown} game minutes ago`,
    );
  }
  return null;
}
