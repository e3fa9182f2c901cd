/**
 * @module Conversations with a player: the agents speak, the game answers for the player. The
 * conversation opens (its initiator's first line when an agent starts it) and waits, stored with
 * `open: true`; each player line gets the agents' lines that follow; it closes when an agent
 * ends it, at the turn cap, when the game ends it or when the player let the world's
 * `playerReplyMinutes` pass. Closing stores the agents' memories as any talk's.
 */
import {
  addMinutes,
  addUsage,
  type Agent,
  type AgentId,
  type Conversation,
  type ConversationEnd,
  type ConversationLine,
  type ConversationResult,
  gameMinutes,
  type GameTime,
  isPlayer,
  type PlanMade,
  SimulacraError,
  type Usage,
  type World,
} from "../../domain/mod.ts";
import { type Deps, type Lease, updateDocument } from "../../ports/mod.ts";
import { conversationKey } from "./conversation_key.ts";
import { saveBothStates } from "./conversation_state.ts";
import { finishHeld } from "./conversation_writes.ts";
import { addressedIn, endOf, nextSpeaker, openScene, type Scene, speak } from "./group_dialogue.ts";
import { newConversation, type TalkRequest, talkStart } from "./group_talk.ts";
import { listenersOf, storeOverheard } from "./overhearing.ts";
import { replanFrom } from "./planning.ts";

/** For worlds stored before `playerReplyMinutes` existed. */
const DEFAULT_REPLY_MINUTES = 30;

/** Game minutes a conversation with a player waits for the player's line. */
export function replyMinutes(world: World): number {
  return world.settings.playerReplyMinutes ?? DEFAULT_REPLY_MINUTES;
}

/** The game time an open conversation stops waiting. */
export function waitsUntil(world: World, conversation: Conversation): GameTime {
  const last = conversation.lines.at(-1)?.at ?? conversation.startedAt;
  return addMinutes(last, replyMinutes(world));
}

/** Whether an open conversation waited longer than the world allows at `now`. */
export function timedOut(world: World, conversation: Conversation, now: GameTime): boolean {
  return gameMinutes(now) > gameMinutes(waitsUntil(world, conversation));
}

/**
 * Opens a conversation with a player among `people`: an agent initiator says the first line
 * (one dialogue-line call); a player initiator waits for its own. Stored open; every
 * participant's state says it is talking until the wait ends. No memory is written yet. With
 * `options.id` stored already (a retried tick), that conversation is answered again.
 */
export async function openWithPlayer(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  world: World,
  { people, options, fences }: TalkRequest,
): Promise<ConversationResult> {
  const key = (id: string) => conversationKey(world.id, id);
  if (options.id !== undefined) {
    const stored = await deps.storage.documents.get<Conversation>(key(options.id));
    if (stored !== null) return resultOf(stored.value, []);
  }
  const listeners = await listenersOf(deps, world, { people, options });
  const start = await talkStart(deps, world, { people, at: options.at });
  const opened = await openScene(deps, world, { people, at: start, topic: options.topic ?? null });
  const usages = [...opened.usage];
  const lines: ConversationLine[] = [];
  const next = await nextSpeaker(deps, opened.scene, { lines, done: new Set(), at: start });
  if (next !== null) {
    usages.push(...next.usage);
    const said = await speak(deps, opened.scene, { next, lines, at: start });
    usages.push(said.usage);
    lines.push(said.line);
  }
  const conversation: Conversation = {
    ...newConversation(deps, world, { people, options, start, lines, endedBy: "open", listeners }),
    players: people.filter(isPlayer).map((p) => p.id),
    open: true,
  };
  await deps.storage.units.commit({
    documents: [{ key: key(conversation.id), value: conversation, expectedVersion: 0 }],
    fences: people.flatMap((p) => fences.get(p.id) ?? []),
    release: [],
  });
  await saveBothStates(deps, world, {
    conversation: { ...conversation, endedAt: waitsUntil(world, conversation) },
    fences,
  });
  return resultOf(conversation, usages);
}

function resultOf(conversation: Conversation, usages: Usage[]): ConversationResult {
  return {
    ...conversation,
    conversationId: conversation.id,
    replanFailed: [],
    usage: addUsage(...usages),
  };
}

/** A conversation with a player, its participants as read under their leases. */
export interface OpenTalk {
  world: World;
  conversation: Conversation;
  /** Every participant, in the conversation's order. */
  people: readonly Agent[];
  fences: ReadonlyMap<AgentId, Lease>;
}

/** What a player's line brought: the agents' lines after it, whether it is still open, cost. */
export interface PlayerTurn {
  conversation: Conversation;
  lines: ConversationLine[];
  usage: Usage;
  plans: PlanMade[];
}

/**
 * The player's line, then the agents': the next speaker by the group rule, then each agent the
 * previous agent line addresses, every agent at most once, until one addresses a player or none
 * is left. An agent that ends it, or reaches the turn cap, closes the conversation
 * ({@linkcode closeTalk}); otherwise it waits again.
 */
export async function answerPlayer(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  talk: OpenTalk,
  { speaker, text, at }: { speaker: Agent; text: string; at: GameTime },
): Promise<PlayerTurn> {
  const { world, people } = talk;
  const lines = [...talk.conversation.lines, { speaker: speaker.id, name: speaker.name, text, at }];
  const opened = await openScene(deps, world, {
    people,
    at,
    topic: talk.conversation.topic,
  });
  const usages = [...opened.usage];
  const answered: ConversationLine[] = [];
  const spoke = new Set<string>();
  let endedBy: ConversationEnd | null = null;
  while (endedBy === null) {
    const when = addMinutes(at, answered.length + 1);
    const next = await nextAgent(deps, opened.scene, { lines, spoke, at: when });
    if (next === null) break;
    usages.push(...next.usage);
    const said = await speak(deps, opened.scene, { next, lines, at: when });
    usages.push(said.usage);
    lines.push(said.line);
    answered.push(said.line);
    spoke.add(said.line.speaker);
    if (said.end || said.capped) endedBy = endOf(opened.scene, said);
    if (addressedIn(said.line.text, people.filter(isPlayer)) !== null) break;
  }
  const conversation = { ...talk.conversation, lines, endedAt: addMinutes(lines.at(-1)!.at, 1) };
  if (endedBy !== null) {
    const closed = await closeTalk(deps, { ...talk, conversation }, { endedBy });
    return { ...closed, lines: answered, usage: addUsage(...usages, closed.usage) };
  }
  await saveConversation(deps, { ...talk, conversation });
  await saveBothStates(deps, world, {
    conversation: { ...conversation, endedAt: waitsUntil(world, conversation) },
    fences: talk.fences,
  });
  return { conversation, lines: answered, usage: addUsage(...usages), plans: [] };
}

/** The first agent to answer a player's line; after it, only the one its line addresses. */
async function nextAgent(
  deps: Pick<Deps, "storage" | "embedder">,
  scene: Scene,
  { lines, spoke, at }: {
    lines: readonly ConversationLine[];
    spoke: ReadonlySet<string>;
    at: GameTime;
  },
) {
  if (spoke.size === 0) return await nextSpeaker(deps, scene, { lines, done: spoke, at });
  const waiting = scene.people.filter((p) => !isPlayer(p) && !spoke.has(p.id));
  const addressed = addressedIn(lines.at(-1)!.text, waiting);
  if (addressed === null) return null;
  return await nextSpeaker(deps, scene, {
    lines,
    done: new Set(scene.people.filter((p) => p.id !== addressed.id).map((p) => p.id)),
    at,
  });
}

/**
 * Closes a conversation with a player: stored closed with `endedBy`, then the agents' memories,
 * counters and states written as any talk's (`finishHeld`), what listeners overheard, and each
 * agent re-plans from its end (a failed re-plan leaves the old plan).
 */
export async function closeTalk(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  talk: OpenTalk,
  { endedBy }: { endedBy: ConversationEnd },
): Promise<PlayerTurn> {
  const { world, people, fences } = talk;
  const conversation: Conversation = { ...talk.conversation, endedBy, open: false };
  await saveConversation(deps, { ...talk, conversation });
  const finished = await finishHeld(deps, { world, people, fences }, conversation.id);
  await storeOverheard(deps, world, conversation);
  const usages = [finished?.usage ?? addUsage()];
  const plans: PlanMade[] = [];
  for (const self of people.filter((p) => !isPlayer(p))) {
    const others = people.filter((p) => p.id !== self.id).map((p) => p.name).join(", ");
    try {
      const replanned = await replanFrom(deps, { world, agent: self }, {
        from: conversation.endedAt,
        reason: `talked with ${others}${conversation.topic ? ` about ${conversation.topic}` : ""}`,
        fence: fences.get(self.id),
      });
      usages.push(replanned.usage);
      plans.push(...replanned.plans);
    } catch (err) {
      if (!(err instanceof SimulacraError)) throw err;
    }
  }
  return { conversation, lines: [], usage: addUsage(...usages), plans };
}

async function saveConversation(deps: Pick<Deps, "storage">, talk: OpenTalk): Promise<void> {
  const { world, conversation } = talk;
  await updateDocument<Conversation>(
    deps.storage.documents,
    conversationKey(world.id, conversation.id),
    {
      change: () => conversation,
      create: false,
      attempts: 3,
      fence: talk.people.map((p) => talk.fences.get(p.id)).find((f) => f !== undefined),
      conflict: `Cannot store conversation "${conversation.id}": it kept changing, retry shortly`,
    },
  );
}
