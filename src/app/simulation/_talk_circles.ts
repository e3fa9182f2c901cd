/**
 * @module Group talk in ticks (world `groupTalk`): when an agent starts a conversation with a
 * newcomer, others who may talk and share the place join it, so the tick holds one group
 * conversation instead of pairs. Chosen while the tick is planned, in agent-id order, so every
 * process and every retry sees the same groups; the conversation itself runs in the pair's
 * message like a pair's (`pairDecision`).
 */
import {
  type Agent,
  type AgentId,
  type Environment,
  isPlayer,
  MAX_PARTICIPANTS,
  type World,
} from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import type { TickFrame } from "../engine/mod.ts";
import { ASLEEP, type Sighting } from "./perception.ts";
import { byAgent, talkedLately } from "./_talk_pairs.ts";
import { samePlace } from "../cognition/mod.ts";

/**
 * Who joins each pair this tick, by its decider's id: awake agents (not players) in the
 * decider's place who are in no pair, had no object trigger and did not talk within the world's
 * `talkCooldownMinutes`, in id order, up to a conversation of {@linkcode MAX_PARTICIPANTS}.
 * Empty unless the world's `groupTalk` is on.
 */
export async function gatherCircles(
  deps: Pick<Deps, "storage">,
  frame: TickFrame<World>,
  { agents, pairs, objectTriggered, env }: {
    agents: readonly Agent[];
    pairs: ReadonlyMap<string, Sighting>;
    objectTriggered: ReadonlySet<string>;
    env: Environment | null;
  },
): Promise<Map<string, string[]>> {
  const circles = new Map<string, string[]>();
  if (!frame.world.settings.groupTalk || pairs.size === 0) return circles;
  const taken = new Set<string>();
  for (const [decider, sighting] of pairs) taken.add(decider).add(sighting.observed!.agentId);
  const byId = new Map(agents.map((a) => [a.id as string, a]));
  const free = [...agents].sort((a, b) => byAgent(a.id, b.id)).filter((a) =>
    !taken.has(a.id) && !isPlayer(a) && !objectTriggered.has(a.id) && a.location !== null &&
    a.action !== null && !ASLEEP.test(a.action)
  );
  for (const decider of [...pairs.keys()].sort(byAgent)) {
    const where = byId.get(decider)?.location;
    if (where === null || where === undefined) continue;
    const joining: string[] = [];
    for (const agent of free) {
      if (joining.length >= MAX_PARTICIPANTS - 2) break;
      if (taken.has(agent.id) || !samePlace(agent.location!, where, env)) continue;
      if (await talkedLately(deps, frame, agent.id as AgentId)) continue;
      joining.push(agent.id);
      taken.add(agent.id);
    }
    if (joining.length > 0) circles.set(decider, joining);
  }
  return circles;
}
