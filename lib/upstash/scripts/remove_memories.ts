/** @module The script that removes an agent's memories with their index entries. */
import type { AgentScope, MemoryId } from "../../../src/domain/mod.ts";
import { MEMORY_SET_COUNT, type RedisKeys } from "../layout.ts";
import type { Script } from "./script.ts";

/** The memories to remove. */
export interface RemoveMemories {
  keys: RedisKeys;
  scope: AgentScope;
  /** Distinct ids. */
  ids: readonly MemoryId[];
}

// KEYS: every memory set (`RedisKeys.memorySets`), then one record hash per id. ARGV: the ids.
const LUA = `
local zsets = ${MEMORY_SET_COUNT}
local removed = 0
for r = 1, #ARGV do
  if redis.call('DEL', KEYS[zsets + r]) == 1 then
    removed = removed + 1
    for z = 1, zsets do redis.call('ZREM', KEYS[z], ARGV[r]) end
  end
end
return removed
`;

/** Removes the records that exist and their index entries; resolves to how many it removed. */
export const removeMemories: Script<RemoveMemories, number> = {
  action: "remove memories",
  lua: LUA,
  encode: ({ keys, scope, ids }) => ({
    keys: [...keys.memorySets(scope), ...ids.map((id) => keys.memory(scope, id))],
    args: [...ids],
  }),
  decode: (reply) => Number(reply),
};
