/**
 * @module A group conversation held at once (three to eight agents, no player): the lines
 * (`group_dialogue.ts`), then the transcript and every participant's memories, stored as a
 * pair's are (`conversation_writes.ts`), so a retry with the same id finishes it.
 */
import {
  addMinutes,
  addUsage,
  type Agent,
  type AgentId,
  type Conversation,
  type ConversationEnd,
  type ConversationLine,
  gameMinutes,
  type GameTime,
  type Usage,
  type World,
  type WorldId,
} from "../../domain/mod.ts";
import type { Deps, Lease } from "../../ports/mod.ts";
import { readConversationState } from "./conversation_state.ts";
import {
  finishHeld,
  type HeldTalk,
  prepareChats,
  storeConversation,
} from "./conversation_writes.ts";
import { openScene, talkAll } from "./group_dialogue.ts";
import { listenersOf } from "./overhearing.ts";

/** A conversation stored, and what holding it cost. */
export interface Talk {
  conversation: Conversation;
  usage: Usage;
}

/** What a talk is: its participants (initiator first), the caller's options, their leases. */
export interface TalkRequest {
  people: readonly Agent[];
  options: {
    topic?: string;
    at: GameTime;
    id?: string;
    private?: boolean;
    listeners?: AgentId[];
  };
  fences: ReadonlyMap<AgentId, Lease>;
}

/**
 * The latest of `at` and the ends of the participants' current conversations: an agent's
 * conversations never overlap in game time.
 */
export async function talkStart(
  deps: Pick<Deps, "storage">,
  world: World,
  { people, at }: { people: readonly Agent[]; at: GameTime },
): Promise<GameTime> {
  const states = await Promise.all(people.map((p) => readConversationState(deps, world, p.id)));
  return [at, ...states.map((s) => s?.until ?? at)].reduce((x, y) =>
    gameMinutes(y) > gameMinutes(x) ? y : x
  );
}

/**
 * Three or more agents talk (see `talkAll`); the transcript and every participant's memories
 * (L line calls, then one importance call per participant) are stored as a pair's. With
 * `options.id` stored already, the talk is finished instead of held again.
 */
export async function groupTalkHeld(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  world: World,
  { people, options, fences }: TalkRequest,
): Promise<Talk> {
  const held = options.id && await finishHeld(deps, { world, people, fences }, options.id);
  if (held) return held;
  const listeners = await listenersOf(deps, world, { people, options });
  const start = await talkStart(deps, world, { people, at: options.at });
  const opened = await openScene(deps, world, { people, at: start, topic: options.topic ?? null });
  const talked = await talkAll(deps, opened.scene, { start });
  const conversation = newConversation(deps, world, {
    people,
    options,
    start,
    lines: talked.lines,
    endedBy: talked.endedBy,
    listeners,
  });
  return await storeTalk(deps, { world, conversation, people, fences }, [
    ...opened.usage,
    ...talked.usage,
  ]);
}

/** The document of a talk held from `start`: one game minute per line. */
export function newConversation(
  deps: Pick<Deps, "ids">,
  world: World,
  { people, options, start, lines, endedBy, listeners }: {
    people: readonly Agent[];
    options: TalkRequest["options"];
    start: GameTime;
    lines: ConversationLine[];
    endedBy: ConversationEnd;
    listeners: readonly AgentId[];
  },
): Conversation {
  return {
    id: options.id ?? deps.ids.next("c"),
    worldId: world.id as WorldId,
    participants: people.map((p) => p.id),
    topic: options.topic ?? null,
    startedAt: start,
    endedAt: addMinutes(start, lines.length),
    lines,
    endedBy,
    ...(listeners.length > 0 ? { listeners: [...listeners] } : {}),
    ...(options.private ? { private: true } : {}),
  };
}

/**
 * Stores a talk held: every participant's memories prepared first (a failed model call leaves
 * no trace of it), then the transcript and the memories (`storeConversation`).
 */
export async function storeTalk(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  talk: HeldTalk,
  usages: readonly Usage[],
): Promise<Talk> {
  const prepared = await prepareChats(deps, talk);
  await storeConversation(deps, talk, prepared);
  return {
    conversation: talk.conversation,
    usage: addUsage(...usages, ...prepared.map((p) => p.usage)),
  };
}
