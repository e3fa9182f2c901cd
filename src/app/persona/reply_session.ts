/** @module Server-side sessions of in-character replies, so clients may send only the new message. */
import { z } from "zod";
import { type Deps, type DocumentKey, updateDocument } from "../../ports/mod.ts";
import { type AgentScope, GameTime } from "../../domain/mod.ts";

/** One turn of a session. */
export const SessionTurn = z.object({ speaker: z.string(), text: z.string(), at: GameTime });
export type SessionTurn = z.infer<typeof SessionTurn>;

/** A session as stored: the last turns between the agent and whoever talks to it. */
export const ReplySession = z.object({
  id: z.string(),
  /** Who talks to the agent in this session (the last speaker named), or null. */
  speaker: z.object({ name: z.string(), description: z.string().nullable() }).nullable(),
  turns: z.array(SessionTurn),
  updatedAt: GameTime,
});
export type ReplySession = z.infer<typeof ReplySession>;

/** Turns a session keeps; older ones fall off (prompts use fewer still, by token budget). */
export const SESSION_TURNS = 40;

function sessionKey(scope: AgentScope, id: string): DocumentKey {
  // Scoped by agent: one agent's session id never reads another's.
  return { collection: "reply_sessions", scope: `${scope.worldId}/${scope.agentId}`, id };
}

/** A session, or null when it is new. */
export async function loadSession(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  id: string,
): Promise<ReplySession | null> {
  return (await deps.storage.documents.get<ReplySession>(sessionKey(scope, id)))?.value ?? null;
}

/**
 * Appends turns to a session (creating it), keeping the last {@linkcode SESSION_TURNS}; a
 * non-null `speaker` replaces the session's.
 * @throws `store_unavailable` when concurrent writers keep winning.
 */
export async function appendSessionTurns(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  { id, turns, speaker }: {
    id: string;
    turns: readonly SessionTurn[];
    speaker: ReplySession["speaker"];
  },
): Promise<void> {
  const at = turns.at(-1)?.at;
  if (at === undefined) return;
  await updateDocument<ReplySession>(deps.storage.documents, sessionKey(scope, id), {
    change: (doc) => ({
      id,
      speaker: speaker ?? doc?.speaker ?? null,
      turns: [...(doc?.turns ?? []), ...turns].slice(-SESSION_TURNS),
      updatedAt: at,
    }),
    conflict:
      `Cannot save conversation "${id}" of agent "${scope.agentId}": it kept changing concurrently, retry`,
  });
}
