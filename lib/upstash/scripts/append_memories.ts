/** @module The script that appends an agent's memories, with their claims and vector copies. */
import {
  type AgentScope,
  ConflictError,
  gameMinutes,
  isLive,
  LeaseLostError,
  type MemoryRecord,
  SimulacraError,
} from "../../../src/domain/mod.ts";
import { type AppendOptions, claimTaken } from "../../../src/ports/mod.ts";
import { encodeValue, KINDS, MEMORY_SETS_LUA, type RedisKeys } from "../layout.ts";
import { unexpectedReply } from "../redis_calls.ts";
import type { Script } from "./script.ts";

/** What {@linkcode appendMemories} writes. */
export interface AppendMemories {
  keys: RedisKeys;
  scope: AgentScope;
  memories: readonly MemoryRecord[];
  options: AppendOptions;
  /**
   * The memories' half-precision vector copies, one per memory in order (see
   * `UpstashVectorIndex.storeRemote`), written to the agent's copies hash with the records.
   */
  vectorCopies?: readonly string[];
}

/**
 * KEYS: the memory sets (`RedisKeys.memorySets`), the fence's lock key, one key per claim, the
 * vector copies' hash when ARGV[3] is 1, then one record hash per memory. ARGV: the fence's token
 * ("" for none), claim count, copies flag, the claims' values, the copies' id/value pairs when
 * the flag is 1 (one per memory), then per memory: id, created score, accessed score,
 * importance, kind number (1-based), upkeep flags (1: out of the live set, 2: superseded; an
 * imported memory may be either), field count, then field/value pairs. Returns -1 (writing
 * nothing) when the fence is not held, "claimed:<i>" when claim i holds another value, the
 * position (1-based) of the first memory whose id exists; otherwise writes all and returns
 * "live:<n>", the agent's live memories after it.
 */
const LUA = `${MEMORY_SETS_LUA}
if ARGV[1] ~= '' and redis.call('GET', KEYS[zsets + 1]) ~= ARGV[1] then return -1 end
local nc = tonumber(ARGV[2])
local copies = tonumber(ARGV[3])
for c = 1, nc do
  local held = redis.call('GET', KEYS[zsets + 1 + c])
  if held and held ~= ARGV[3 + c] then return 'claimed:' .. c end
end
local first = zsets + 2 + nc + copies
local n = #KEYS - first + 1
for r = 1, n do
  if redis.call('EXISTS', KEYS[first + r - 1]) == 1 then return r end
end
for c = 1, nc do redis.call('SET', KEYS[zsets + 1 + c], ARGV[3 + c]) end
local i = 4 + nc
if copies == 1 then
  redis.call('HSET', KEYS[zsets + 2 + nc], unpack(ARGV, i, i + 2 * n - 1))
  i = i + 2 * n
end
for r = 1, n do
  local id = ARGV[i]
  local flags = tonumber(ARGV[i + 5])
  local fields = tonumber(ARGV[i + 6])
  redis.call('HSET', KEYS[first + r - 1], unpack(ARGV, i + 7, i + 6 + fields * 2))
  redis.call('ZADD', KEYS[1], ARGV[i + 1], id)
  redis.call('ZADD', KEYS[3 + tonumber(ARGV[i + 4])], ARGV[i + 1], id)
  if flags % 2 == 1 then
    redis.call('ZADD', KEYS[out], ARGV[i + 1], id)
    redis.call('ZADD', KEYS[outAccessed], ARGV[i + 2], id)
    redis.call('ZADD', KEYS[outImportance], ARGV[i + 3], id)
  else
    redis.call('ZADD', KEYS[live], ARGV[i + 1], id)
    redis.call('ZADD', KEYS[2], ARGV[i + 2], id)
    redis.call('ZADD', KEYS[3], ARGV[i + 3], id)
  end
  if flags >= 2 then redis.call('ZADD', KEYS[superseded], 0, id) end
  i = i + 7 + fields * 2
end
return 'live:' .. redis.call('ZCARD', KEYS[live])
`;

/** Appends memories atomically: all or none, fenced, with their claims (`MemoryStore.append`). */
export const appendMemories: Script<AppendMemories, number> = {
  action: "append memories",
  lua: LUA,
  encode(input) {
    const { keys, scope, memories, vectorCopies } = input;
    checkRecords(scope, memories);
    const { fence } = input.options;
    const claims = input.options.claims ?? [];
    const args: string[] = [
      fence?.token ?? "",
      String(claims.length),
      vectorCopies ? "1" : "0",
      ...claims.map((c) => encodeValue(c.value)),
      ...(vectorCopies ? memories.flatMap((m, i) => [m.id, vectorCopies[i]]) : []),
    ];
    for (const memory of memories) {
      const fields = Object.entries(memory).filter(([, v]) => v !== undefined);
      args.push(
        memory.id,
        String(gameMinutes(memory.createdAt)),
        String(gameMinutes(memory.lastAccessedAt)),
        String(memory.importance),
        String(KINDS.indexOf(memory.kind) + 1),
        String((isLive(memory) ? 0 : 1) + (memory.supersededBy === undefined ? 0 : 2)),
        String(fields.length),
        ...fields.flatMap(([field, value]) => [field, JSON.stringify(value)]),
      );
    }
    return {
      keys: [
        ...keys.memorySets(scope),
        keys.lock(fence?.key ?? "-"),
        ...claims.map((c) => keys.idempotency(c.scope, c.key)),
        ...(vectorCopies ? [keys.vectorCopies(scope)] : []),
        ...memories.map((m) => keys.memory(scope, m.id)),
      ],
      args,
    };
  },
  decode(reply, { scope, memories, options }) {
    const claimed = /^claimed:(\d+)$/.exec(String(reply));
    if (claimed) throw claimTaken(options.claims![Number(claimed[1]) - 1]);
    const live = /^live:(\d+)$/.exec(String(reply));
    if (live) return Number(live[1]);
    const existing = Number(reply);
    if (!Number.isInteger(existing)) unexpectedReply("append memories");
    if (existing < 0) throw new LeaseLostError(options.fence!.key);
    if (existing > 0) throw memoryExists(scope, memories[existing - 1].id);
    return unexpectedReply("append memories");
  },
};

/** Refuses what would fail the script halfway through its writes, or break the scope. */
function checkRecords(scope: AgentScope, memories: readonly MemoryRecord[]): void {
  const seen = new Set<string>();
  for (const memory of memories) {
    if (memory.worldId !== scope.worldId || memory.agentId !== scope.agentId) {
      throw new SimulacraError(
        "invalid_request",
        `Cannot append memory "${memory.id}" to agent "${scope.agentId}" of world "${scope.worldId}": it belongs to agent "${memory.agentId}" of world "${memory.worldId}"`,
      );
    }
    if (seen.has(memory.id)) throw memoryExists(scope, memory.id);
    seen.add(memory.id);
    const scores = [gameMinutes(memory.createdAt), gameMinutes(memory.lastAccessedAt)];
    if (
      !KINDS.includes(memory.kind) || !scores.every(Number.isFinite) ||
      !Number.isFinite(memory.importance)
    ) {
      throw new SimulacraError(
        "invalid_request",
        `Cannot append memory "${memory.id}": its kind, times or importance are not valid`,
      );
    }
  }
}

function memoryExists(scope: AgentScope, id: string): ConflictError {
  return new ConflictError(
    `Cannot append memory "${id}": agent "${scope.agentId}" of world "${scope.worldId}" already has it`,
  );
}
