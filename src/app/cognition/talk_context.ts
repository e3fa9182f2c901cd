/**
 * @module What a speaker brings to a talk (Generative Agents §4.3, information diffusion): its
 * news, and what it told its listeners before. Shared by pairs and groups.
 */
import type { Agent, AgentScope, World, WorldId } from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";

/** News items a speaker brings to a conversation, and earlier lines to the listener it recalls. */
const NEWS_ITEMS = 5;
const TOLD_BEFORE_ITEMS = 4;
/** Chat memories read for the speaker's news and earlier lines. */
const CHAT_WINDOW = 100;

/** Memories per line, after merging the queries. */
const MEMORIES_PER_LINE = 8;

/** A speaker's news and what it said to its listeners in earlier talks. */
export interface TalkContext {
  news: string[];
  toldBefore: string[];
}

/**
 * What a speaker brings to a talk: its news (seed memories and things others told it or it
 * overheard, most important first, newest first on ties; none told by or naming a listener), and
 * what it said to a listener in earlier talks, newest first.
 */
export async function talkContext(
  deps: Pick<Deps, "storage">,
  world: World,
  { speaker, listeners }: { speaker: Agent; listeners: readonly Agent[] },
): Promise<TalkContext> {
  const scope: AgentScope = { worldId: world.id as WorldId, agentId: speaker.id };
  const [seeds, chats] = await Promise.all([
    deps.storage.memories.list(scope, { kind: "seed", limit: CHAT_WINDOW }),
    deps.storage.memories.list(scope, { kind: "chat", limit: CHAT_WINDOW, order: "desc" }),
  ]);
  const firsts = listeners.map((l) => l.name.split(/\s+/)[0].toLowerCase());
  const sources = new Set(
    listeners.flatMap((l) => [`told_by:${l.name}`, `overheard:${l.name}`]),
  );
  const news = [...seeds.memories, ...chats.memories]
    .filter((m) =>
      (m.kind === "seed" || m.provenance.startsWith("told_by:") ||
        m.provenance.startsWith("overheard:")) &&
      !sources.has(m.provenance) &&
      !firsts.some((first) => m.description.toLowerCase().includes(first))
    )
    .sort((a, b) =>
      b.importance - a.importance || b.createdAt.localeCompare(a.createdAt) ||
      a.description.localeCompare(b.description)
    )
    .map((m) => m.description);
  const said = listeners.map((l) => `${speaker.name} said to ${l.name}: `);
  const toldBefore = chats.memories.flatMap((m) => {
    const prefix = said.find((s) => m.description.startsWith(s));
    return prefix === undefined ? [] : [m.description.slice(prefix.length)];
  });
  return {
    news: [...new Set(news)].slice(0, NEWS_ITEMS),
    toldBefore: toldBefore.slice(0, TOLD_BEFORE_ITEMS),
  };
}

/** Interleaves the results of the queries, best first, without repeats. */
export function mergeRecalled(results: string[][]): string[] {
  const out: string[] = [];
  for (let rank = 0; out.length < MEMORIES_PER_LINE; rank++) {
    const row = results.map((r) => r[rank]).filter((m) => m !== undefined);
    if (row.length === 0) break;
    for (const m of row) if (!out.includes(m) && out.length < MEMORIES_PER_LINE) out.push(m);
  }
  return out;
}
