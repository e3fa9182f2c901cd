/** @module Dialogue: two agents talk line by line from their memories of each other, and both remember it (Generative Agents §4.3). */
import {
  addMinutes,
  addUsage,
  type Agent,
  type AgentId,
  type ConversationEnd,
  type ConversationLine,
  type ConversationResult,
  gameMinutes,
  GameTime,
  isPlayer,
  type PlanMade,
  SimulacraError,
  type Usage,
  type World,
} from "../../domain/mod.ts";
import type { AgentsTransaction } from "../agents/mod.ts";
import type { Deps, Lease } from "../../ports/mod.ts";
import { recall } from "../memory/mod.ts";
import { speakLine } from "../../mind/mod.ts";
import { talkLore } from "./_talk_lore.ts";
import { agentSummary } from "./agent_summary.ts";
import { readConversationState } from "./conversation_state.ts";
import { finishHeld, joinNames } from "./conversation_writes.ts";
import { replanFrom } from "./planning.ts";
import { mergeRecalled, talkContext } from "./talk_context.ts";
import { groupTalkHeld, newConversation, storeTalk, type Talk } from "./group_talk.ts";
import { listenersOf, storeOverheard } from "./overhearing.ts";
import { openWithPlayer } from "./player_talk.ts";
import { changesTheDay } from "./group_dialogue.ts";

/** Options for {@linkcode converse}. */
export interface ConverseOptions {
  /** What the initiator wants to talk about (the reaction's intent). @default none */
  topic?: string;
  /**
   * Game time of the first line. When either participant is still in a conversation then, the
   * talk starts when that one ends, so an agent's conversations never overlap in game time.
   */
  at: GameTime;
  /**
   * The id, for a caller whose try may be retried (a tick's pair): a conversation of this id
   * stored already is finished (the memories, counters and states an earlier try did not write
   * are written, see `finishHeld`; both re-plan), not held again. @default new
   */
  id?: string;
  /** Nobody nearby overhears it. @default false */
  private?: boolean;
  /**
   * Who may overhear it, chosen by the caller (a tick: from where everyone was as it began, so
   * that it replays the same); the caller writes what they overheard (`storeOverheard`) when
   * their own steps are done. @default the agents nearby now, their memories written at once
   */
  listeners?: AgentId[];
}

/** Memories per retrieval query that condition a line. */
const RECALL_K = 5;

/**
 * Two agents talk: the transaction's first agent starts, with its second. The initiator's
 * opening is conditioned on its memories about the other (recalled for "<initiator>'s
 * relationship with <other>" and the topic) and on the topic; each reply on the replier's
 * memories about the speaker and about the last line, plus the history. It stops when a
 * speaker sets `end`, or when each has said `conversationTurnCap` lines. Each line takes one
 * game minute: line `i` is at `start + i` minutes and the talk ends one minute after the last
 * line.
 *
 * The transaction holds both agents' leases. The transcript goes into the "conversations"
 * collection, then every line into both memory streams as a `chat` memory (heard lines with
 * provenance `told_by:<speaker name>`, own lines `self`; one importance call and one embedding
 * call per participant, made before anything is written; each participant's memories written
 * all at once, with ids keyed by the conversation and line), and both conversation states are
 * updated (`conversation_writes.ts`); each participant's memories are fenced by its lease, so a
 * holder that lost it writes nothing of the talk (`LeaseLostError`). Then both participants
 * re-plan from the end of the talk, given whom they talked with, about what and what the other
 * said; a re-plan that fails is reported in `replanFailed`, not
 * thrown, because the conversation is stored.
 * @throws `model_*`, `store_unavailable`.
 * @see Generative Agents §4.3 "Dialogue"; Park et al. 2023 §4.3.2.
 */
export async function converse(
  deps: Pick<Deps, "model" | "embedder" | "ids">,
  tx: AgentsTransaction,
  options: ConverseOptions,
): Promise<ConversationResult & { plans: PlanMade[] }> {
  const { world } = tx;
  const d = { ...deps, storage: tx.storage };
  const fences = new Map(tx.agents.map((agent, i) => [agent.id, tx.leases[i]]));
  if (tx.agents.some(isPlayer)) {
    return { ...await openWithPlayer(d, world, { people: tx.agents, options, fences }), plans: [] };
  }
  const people = tx.agents;
  const talk = people.length === 2
    ? await talkHeld(d, world, { people: [people[0], people[1]], options, fences })
    : await groupTalkHeld(d, world, { people, options, fences });
  if (options.listeners === undefined) await storeOverheard(d, world, talk.conversation);

  const replanFailed: AgentId[] = [];
  const usages = [talk.usage];
  const about = options.topic ?? `"${clip(talk.conversation.lines[0].text, 120)}"`;
  // What the others said goes with the reason, so the rest of the day can answer it (news of
  // a party tonight puts the party in the plan).
  const heard = (partner: Agent) => {
    const said = talk.conversation.lines.filter((l) => l.speaker === partner.id);
    return said.length === 0
      ? ""
      : `; ${partner.name} said: “${clip(said.map((l) => l.text).join(" "), HEARD_CHARS)}”`;
  };
  const othersOf = (self: Agent) => people.filter((p) => p.id !== self.id);
  // A pair always re-plans; in a group, only who heard something that may change its day.
  const replanning = people.length === 2
    ? people
    : people.filter((self) => changesTheDay(talk.conversation, self.id));
  const replans = await Promise.allSettled(
    replanning.map((self) =>
      replanFrom(d, { world, agent: self }, {
        from: talk.conversation.endedAt,
        reason: `talked with ${joinNames(othersOf(self).map((p) => p.name))} about ${about}${
          othersOf(self).map(heard).join("")
        }`,
        fence: fences.get(self.id),
      })
    ),
  );
  const plans: PlanMade[] = [];
  replans.forEach((r, i) => {
    if (r.status === "fulfilled") {
      usages.push(r.value.usage);
      plans.push(...r.value.plans);
    } else if (r.reason instanceof SimulacraError) replanFailed.push(replanning[i].id);
    else throw r.reason;
  });
  return { ...talk.conversation, replanFailed, usage: addUsage(...usages), plans };
}

/** The most of what the partner said that a re-plan's reason carries, in characters. */
const HEARD_CHARS = 240;

async function talkHeld(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  world: World,
  { people, options, fences }: {
    /** Both agents as read under their leases, initiator first. */
    people: [Agent, Agent];
    options: ConverseOptions;
    /** Each participant's lease, the fence of its writes. */
    fences: ReadonlyMap<AgentId, Lease>;
  },
): Promise<Talk> {
  const held = options.id && await finishHeld(deps, { world, people, fences }, options.id);
  if (held) return held;
  const listeners = await listenersOf(deps, world, { people, options });
  const states = await Promise.all(people.map((p) => readConversationState(deps, world, p.id)));
  const start = [options.at, ...states.map((s) => s?.until ?? options.at)].reduce((x, y) =>
    gameMinutes(y) > gameMinutes(x) ? y : x
  );
  const summaries = await Promise.all(
    people.map((p) => agentSummary(deps, { world, agent: p, at: start })),
  );
  const usages: Usage[] = summaries.map((s) => s.usage);
  const [context, lore] = await Promise.all([
    Promise.all([
      talkContext(deps, world, { speaker: people[0], listeners: [people[1]] }),
      talkContext(deps, world, { speaker: people[1], listeners: [people[0]] }),
    ]),
    talkLore(deps, world, people),
  ]);

  const cap = world.settings.conversationTurnCap;
  const lines: ConversationLine[] = [];
  let endedBy: ConversationEnd = "turn_cap";
  for (let i = 0; i < 2 * cap; i++) {
    const side = i % 2;
    const speaker = people[side];
    const listener = people[1 - side];
    const at = addMinutes(start, i);
    const last = lines.at(-1);
    const recalled = await recall(deps, {
      world,
      agent: speaker,
      queries: [
        `${speaker.name}'s relationship with ${listener.name}`,
        last?.text ?? options.topic ?? listener.name,
      ],
    }, { at, k: RECALL_K });
    usages.push(recalled.usage);
    const known = lore.forLine(side, [options.topic ?? "", ...lines.slice(-4).map((l) => l.text)]);
    const spoken = await speakLine(deps, {
      speakerName: speaker.name,
      listenerName: listener.name,
      summary: summaries[side].summary.text,
      now: at,
      memories: mergeRecalled(recalled.results.map((r) => r.map((s) => s.memory.description))),
      news: context[side].news,
      toldBefore: context[side].toldBefore,
      topic: side === 0 ? options.topic ?? null : null,
      history: lines.map((l) => ({ speaker: l.name, text: l.text })),
      turn: Math.floor(i / 2) + 1,
      maxTurns: cap,
      ...known.length > 0 ? { lore: known.map((e) => e.content) } : {},
    }, { worldId: world.id, agentId: speaker.id });
    usages.push(spoken.usage);
    lines.push({
      speaker: speaker.id,
      name: speaker.name,
      text: spoken.text,
      at,
      ...known.length > 0 ? { used: { lore: known.map((e) => e.id) } } : {},
    });
    if (spoken.end) {
      endedBy = side === 0 ? "initiator" : "other";
      break;
    }
  }
  const conversation = newConversation(deps, world, {
    people,
    options,
    start,
    lines,
    endedBy,
    listeners,
  });
  return await storeTalk(deps, { world, conversation, people, fences }, usages);
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
