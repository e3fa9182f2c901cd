/** @module The script that sets a memory's importance (a late score). */
import type { AgentScope, MemoryId } from "../../../src/domain/mod.ts";
import type { RedisKeys } from "../layout.ts";
import type { Script } from "./script.ts";

/** The memory and its new importance. */
export interface SetImportance {
  keys: RedisKeys;
  scope: AgentScope;
  id: MemoryId;
  importance: number;
}

// KEYS: importance, record, importance of the memories out of the live set. ARGV: importance,
// id. Returns 1 when the memory exists, else 0.
const LUA = `
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'importance', ARGV[1])
redis.call('HDEL', KEYS[2], 'importancePending')
if redis.call('ZSCORE', KEYS[3], ARGV[2]) then
  redis.call('ZADD', KEYS[3], ARGV[1], ARGV[2])
else
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
end
return 1
`;

/** Sets the importance, clears `importancePending` and re-sorts; true when the memory exists. */
export const setImportance: Script<SetImportance, boolean> = {
  action: "set a memory's importance",
  lua: LUA,
  encode: ({ keys, scope, id, importance }) => ({
    keys: [
      keys.memoryIndex(scope, "importance"),
      keys.memory(scope, id),
      keys.upkeepSet(scope, "outImportance"),
    ],
    args: [String(importance), id],
  }),
  decode: (reply) => Number(reply) === 1,
};
