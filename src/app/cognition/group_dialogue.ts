/**
 * @module Group talk: three to eight agents (or agents and players) in one conversation. Each
 * turn the next speaker is the one the last line addressed by name, else the one whose retrieved
 * memories make the last line most relevant to them; never the same speaker twice in a row.
 * Every line is one dialogue-line call (Generative Agents §4.3, generalised to a group).
 */
import {
  addMinutes,
  type Agent,
  type Conversation,
  type ConversationEnd,
  type ConversationLine,
  type GameTime,
  isPlayer,
  type Usage,
  type World,
} from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { recall } from "../memory/mod.ts";
import { speakLine } from "../../mind/mod.ts";
import { agentSummary } from "./agent_summary.ts";
import { joinNames } from "./conversation_writes.ts";
import { mergeRecalled, type TalkContext, talkContext } from "./talk_context.ts";

/** Memories per retrieval query that condition a line (as in a pair). */
const RECALL_K = 5;

/** Who talks, about what, and what each agent brings: loaded once per conversation. */
export interface Scene {
  world: World;
  /** Every participant, initiator first; players among them speak only through the game. */
  people: readonly Agent[];
  topic: string | null;
  /** Each agent's summary, by id (none for players). */
  summaries: ReadonlyMap<string, string>;
  contexts: ReadonlyMap<string, TalkContext>;
}

/** The speaker chosen for the next line and the memories that made it speak. */
export interface NextSpeaker {
  speaker: Agent;
  memories: string[];
  usage: Usage[];
}

/** Loads what each agent participant brings (its summary, news and earlier lines). */
export async function openScene(
  deps: Pick<Deps, "storage" | "model" | "embedder">,
  world: World,
  { people, at, topic }: { people: readonly Agent[]; at: GameTime; topic: string | null },
): Promise<{ scene: Scene; usage: Usage[] }> {
  const agents = people.filter((p) => !isPlayer(p));
  const summaries = await Promise.all(
    agents.map((p) => agentSummary(deps, { world, agent: p, at })),
  );
  const contexts = await Promise.all(
    agents.map((p) =>
      talkContext(deps, world, { speaker: p, listeners: people.filter((o) => o.id !== p.id) })
    ),
  );
  return {
    scene: {
      world,
      people,
      topic,
      summaries: new Map(agents.map((p, i) => [p.id, summaries[i].summary.text])),
      contexts: new Map(agents.map((p, i) => [p.id, contexts[i]])),
    },
    usage: summaries.map((s) => s.usage),
  };
}

/**
 * The next agent to speak, or null when nobody may: not a player, not one who is `done` (ended
 * or said its most lines), not the last speaker. The opening line is the initiator's. Else the
 * candidate the last line names (the earliest named), else the one whose memories retrieved for
 * the last line are most relevant to it (highest cosine; ties to the earlier participant).
 */
export async function nextSpeaker(
  deps: Pick<Deps, "storage" | "embedder">,
  scene: Scene,
  { lines, done, at }: {
    lines: readonly ConversationLine[];
    done: ReadonlySet<string>;
    at: GameTime;
  },
): Promise<NextSpeaker | null> {
  const last = lines.at(-1);
  const candidates = scene.people.filter((p) =>
    !isPlayer(p) && !done.has(p.id) && p.id !== last?.speaker
  );
  if (candidates.length === 0) return null;
  if (last === undefined) {
    if (candidates[0].id !== scene.people[0].id) return null; // a player opens
    return await withMemories(deps, scene, { speaker: candidates[0], at, about: null });
  }
  const addressed = addressedIn(last.text, candidates);
  if (addressed !== null) {
    return await withMemories(deps, scene, { speaker: addressed, at, about: last.text });
  }
  const heard = await Promise.all(
    candidates.map((c) => withMemories(deps, scene, { speaker: c, at, about: last.text })),
  );
  let best = 0;
  heard.forEach((h, i) => {
    if (relevance(h) > relevance(heard[best])) best = i;
  });
  const usage = heard.flatMap((h) => h.usage);
  return { ...heard[best], usage };
}

/** The best cosine among what a candidate recalled for the last line (kept on the result). */
function relevance(h: NextSpeaker & { best?: number }): number {
  return h.best ?? 0;
}

/** The candidate the text names first (full or first name, as a word); null when none. */
export function addressedIn(text: string, candidates: readonly Agent[]): Agent | null {
  const lower = text.toLowerCase();
  let found: { agent: Agent; at: number } | null = null;
  for (const c of candidates) {
    for (const name of [c.name, c.name.split(/\s+/)[0]]) {
      const match = new RegExp(`(^|[^\\p{L}])${escape(name.toLowerCase())}($|[^\\p{L}])`, "u")
        .exec(lower);
      if (match && (found === null || match.index < found.at)) {
        found = { agent: c, at: match.index };
      }
    }
  }
  return found?.agent ?? null;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A candidate's memories about the others and about the last line, and their best cosine. */
async function withMemories(
  deps: Pick<Deps, "storage" | "embedder">,
  scene: Scene,
  { speaker, at, about }: { speaker: Agent; at: GameTime; about: string | null },
): Promise<NextSpeaker & { best: number }> {
  const others = joinNames(scene.people.filter((p) => p.id !== speaker.id).map((p) => p.name));
  const recalled = await recall(deps, {
    world: scene.world,
    agent: speaker,
    queries: [about ?? scene.topic ?? others, `${speaker.name}'s relationship with ${others}`],
  }, { at, k: RECALL_K });
  const best = Math.max(0, ...recalled.results[0].map((s) => s.raw.cosine));
  return {
    speaker,
    memories: mergeRecalled(recalled.results.map((r) => r.map((s) => s.memory.description))),
    usage: [recalled.usage],
    best,
  };
}

/** One line by `speaker` at `at`: one dialogue-line call. */
export async function speak(
  deps: Pick<Deps, "model">,
  scene: Scene,
  { next, lines, at }: { next: NextSpeaker; lines: readonly ConversationLine[]; at: GameTime },
): Promise<{ line: ConversationLine; end: boolean; capped: boolean; usage: Usage }> {
  const { speaker, memories } = next;
  const cap = scene.world.settings.conversationTurnCap;
  const own = lines.filter((l) => l.speaker === speaker.id).length;
  const context = scene.contexts.get(speaker.id) ?? { news: [], toldBefore: [] };
  const spoken = await speakLine(deps, {
    speakerName: speaker.name,
    listenerName: joinNames(scene.people.filter((p) => p.id !== speaker.id).map((p) => p.name)),
    summary: scene.summaries.get(speaker.id) ?? speaker.description,
    now: at,
    memories,
    news: context.news,
    toldBefore: context.toldBefore,
    topic: lines.length === 0 ? scene.topic : null,
    history: lines.map((l) => ({ speaker: l.name, text: l.text })),
    turn: own + 1,
    maxTurns: cap,
  }, { worldId: scene.world.id, agentId: speaker.id });
  return {
    line: { speaker: speaker.id, name: speaker.name, text: spoken.text, at },
    end: spoken.end,
    /** The speaker said its most lines. */
    capped: own + 1 >= cap,
    usage: spoken.usage,
  };
}

/** The lines of a group talk held at once (no player waiting), and how it ended. */
export interface GroupLines {
  lines: ConversationLine[];
  endedBy: ConversationEnd;
  usage: Usage[];
}

/**
 * Agents talk from `start` until fewer than two still have something to say (each who ends or
 * says its `conversationTurnCap` lines is done), nobody may speak next, or the conversation has
 * `2 × conversationTurnCap` lines. One game minute per line.
 */
export async function talkAll(
  deps: Pick<Deps, "storage" | "model" | "embedder">,
  scene: Scene,
  { start }: { start: GameTime },
): Promise<GroupLines> {
  const cap = scene.world.settings.conversationTurnCap;
  const lines: ConversationLine[] = [];
  const usage: Usage[] = [];
  const done = new Set<string>();
  const talkers = scene.people.filter((p) => !isPlayer(p)).length;
  let endedBy: ConversationEnd = "quiet";
  while (true) {
    if (lines.length >= 2 * cap) {
      endedBy = "turn_cap";
      break;
    }
    const at = addMinutes(start, lines.length);
    const next = await nextSpeaker(deps, scene, { lines, done, at });
    if (next === null) break;
    usage.push(...next.usage);
    const said = await speak(deps, scene, { next, lines, at });
    usage.push(said.usage);
    lines.push(said.line);
    if (said.end || said.capped) done.add(said.line.speaker);
    if (talkers - done.size < 2) {
      endedBy = endOf(scene, said);
      break;
    }
  }
  return { lines, endedBy, usage };
}

/** Who ended a talk with this line: its speaker (initiator or other), or the turn cap. */
export function endOf(
  scene: Pick<Scene, "people">,
  said: { line: ConversationLine; end: boolean; capped: boolean },
): ConversationEnd {
  if (said.end) return said.line.speaker === scene.people[0].id ? "initiator" : "other";
  return said.capped ? "turn_cap" : "quiet";
}

/** Words of a line that may change a listener's day: a time, a day, or an event to go to. */
const DAY_NEWS =
  /\b(?:today|tonight|tomorrow|this (?:morning|afternoon|evening)|at \d{1,2}(?::\d\d)?|\d{1,2}(?::\d\d)? ?(?:am|pm)|o'clock|noon|(?:mon|tues|wednes|thurs|fri|satur|sun)day|party|meeting|festival|election|invite|invited|join us)\b/i;

/**
 * Whether a group talk may have changed `agentId`'s day, so that it re-plans: another
 * participant named a time, a day or an event to go to (no model call decides). Who only heard
 * small talk keeps its plan: in a crowd, re-planning everyone would pull people away from what
 * they came for.
 */
export function changesTheDay(conversation: Pick<Conversation, "lines">, agentId: string): boolean {
  return conversation.lines.some((l) => l.speaker !== agentId && DAY_NEWS.test(l.text));
}
