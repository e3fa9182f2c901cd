/**
 * @module The script of the hosted `MemoryStore.candidates` read: read-only, over the agent's
 * sorted sets (scores only, never records, so Upstash's database-wide script lock is held
 * briefly).
 */
import {
  type AgentScope,
  fromGameMinutes,
  type MemoryId,
  type MemoryKind,
} from "../../../src/domain/mod.ts";
import type {
  IndexLeaders,
  MemoryCandidates,
  MemoryInclusion,
  MemoryRankFields,
} from "../../../src/ports/mod.ts";
import { KINDS, type RedisKeys } from "../layout.ts";
import { pairs, unexpectedReply } from "../redis_calls.ts";
import type { Script } from "./script.ts";

/** The candidates to read the rank fields of. */
export interface MemoryCandidatesInput {
  keys: RedisKeys;
  scope: AgentScope;
  /** Candidates besides the heads (the vector search's hits). */
  ids: readonly MemoryId[];
  /** How many of the most recently accessed and of the most important to add. */
  heads: number;
  /** Only memories of these kinds; absent or every kind: no filter. */
  kinds?: readonly MemoryKind[];
  /** Memories besides the live ones that are not superseded. */
  include?: MemoryInclusion;
}

// KEYS: created, accessed, importance, the out-sets' accessed and importance (with archived
// memories included), superseded (unless included), then the created-set of each kind filtered
// on. ARGV: the
// heads' size, then ids. Reads only sorted-set scores. Returns the accessed head and its lowest
// entry, the same of importance (ZRANGE WITHSCORES replies), then, for the ids followed by both
// heads' ids (each once), one ZMSCORE reply per key (none when there are no ids).
const LUA = `
local n = tonumber(ARGV[1])
local out = {}
for z = 2, 3 do
  if n > 0 then
    out[#out + 1] = redis.call('ZRANGE', KEYS[z], 0, n - 1, 'REV', 'WITHSCORES')
  else
    out[#out + 1] = {}
  end
  out[#out + 1] = redis.call('ZRANGE', KEYS[z], 0, 0, 'WITHSCORES')
end
local ids, seen = {}, {}
local function add(id)
  if not seen[id] then
    seen[id] = true
    ids[#ids + 1] = id
  end
end
for i = 2, #ARGV do add(ARGV[i]) end
for h = 1, 3, 2 do
  for i = 1, #out[h], 2 do add(out[h][i]) end
end
if #ids > 0 then
  for k = 1, #KEYS do
    -- In parts of 4,000 ids: Lua's unpack takes fewer than 8,000.
    local scores = {}
    for from = 1, #ids, 4000 do
      local part = redis.call('ZMSCORE', KEYS[k], unpack(ids, from, math.min(from + 3999, #ids)))
      for i = 1, #part do scores[#scores + 1] = part[i] end
    end
    out[#out + 1] = scores
  end
end
return out
`;

/**
 * Four ZRANGEs (the two heads and their lowest scores, of the live memories) and ZMSCOREs of the
 * candidates: created, accessed, importance, superseded (two more with archived memories
 * included), plus one per kind filtered on. A thousand candidates cost a handful of commands
 * and no record reads. Scores are game minutes, exact to the second, so `createdAt` round-trips.
 */
export const memoryCandidates: Script<MemoryCandidatesInput, MemoryCandidates> = {
  action: "rank memories",
  lua: LUA,
  encode(input) {
    const { keys, scope, include = {} } = input;
    const sets = keys.memorySets(scope);
    return {
      keys: [
        ...sets.slice(0, 3),
        ...include.archived
          ? [keys.upkeepSet(scope, "outAccessed"), keys.upkeepSet(scope, "outImportance")]
          : [],
        ...include.superseded ? [] : [keys.upkeepSet(scope, "superseded")],
        ...filtered(input).map((kind) => keys.memoryKind(scope, kind)),
      ],
      args: [String(Math.max(0, Math.floor(input.heads))), ...input.ids],
    };
  },
  decode: (reply, input) => decodeCandidates(reply, input),
};

/** The kinds filtered on: none when every kind is asked for. */
function filtered({ kinds }: MemoryCandidatesInput): MemoryKind[] {
  return kinds && KINDS.some((k) => !kinds.includes(k)) ? [...new Set(kinds)] : [];
}

/**
 * The script's reply as `MemoryCandidates`, read by the keys {@linkcode memoryCandidates} sent.
 * Rebuilds the script's union (the ids, then both heads' ids, each once) rather than have it sent
 * back.
 */
function decodeCandidates(reply: unknown, input: MemoryCandidatesInput): MemoryCandidates {
  if (!Array.isArray(reply) || reply.length < 4) unexpectedReply("rank memories");
  const { include = {} } = input;
  const recent = leadersOf(reply[0], reply[1]);
  const important = leadersOf(reply[2], reply[3]);
  // The script's union, in its order.
  const union = [...new Set([...input.ids, ...recent.ids, ...important.ids])];
  const columns = reply.slice(4) as unknown[][];
  const [created, accessed, importance] = columns;
  let next = 3;
  const [outAccessed, outImportance] = include.archived ? columns.slice(next, next += 2) : [];
  const superseded = include.superseded ? undefined : columns[next++];
  const ofKinds = columns.slice(next);
  if (
    columns.length !== (union.length === 0 ? 0 : next + filtered(input).length) ||
    !columns.every((c) => Array.isArray(c) && c.length === union.length)
  ) unexpectedReply("rank memories");
  const fields = union.flatMap((id, i): MemoryRankFields[] => {
    const accessedAt = accessed[i] ?? outAccessed?.[i] ?? null;
    const importanceOf = importance[i] ?? outImportance?.[i] ?? null;
    if (created[i] === null || accessedAt === null || importanceOf === null) return [];
    if (superseded !== undefined && superseded[i] !== null) return [];
    if (ofKinds.length > 0 && ofKinds.every((scores) => scores[i] === null)) return [];
    return [{
      id,
      createdAt: fromGameMinutes(Number(created[i])),
      accessedMinutes: Number(accessedAt),
      importance: Number(importanceOf),
    }];
  });
  return { recent, important, fields };
}

/** A head (ZRANGE WITHSCORES, highest first) and the index's lowest entry as `IndexLeaders`. */
function leadersOf(top: unknown, bottom: unknown): IndexLeaders {
  const leaders = pairs(top, "rank memories");
  const lowest = pairs(bottom, "rank memories");
  return {
    ids: leaders.map(([id]) => id as MemoryId),
    scores: leaders.map(([, score]) => Number(score)),
    lowest: lowest.length > 0 ? Number(lowest[0][1]) : null,
  };
}
