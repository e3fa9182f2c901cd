/** @module The script that appends events to a world's log, numbered without gaps. */
import type { RedisKeys } from "../layout.ts";
import { unexpectedReply } from "../redis_calls.ts";
import type { Script } from "./script.ts";

/** The events to append, each a JSON object without `seq`. */
export interface AppendEvents {
  keys: RedisKeys;
  worldId: string;
  bodies: readonly string[];
}

// KEYS: the counter, the log. ARGV: each event as a JSON object without `seq`. INCRBY reserves
// the whole range and the events are written in the same script, so the sequence is gap-free:
// no other append can run in between, and no number is taken without its event being written.
// `seq` is spliced in as the first field of each JSON object, which keeps members unique.
const LUA = `
local n = #ARGV
local last = redis.call('INCRBY', KEYS[1], n)
local first = last - n + 1
for i = 1, n do
  local seq = first + i - 1
  local body = ARGV[i]
  local json
  if body == '{}' then json = '{"seq":' .. seq .. '}'
  else json = '{"seq":' .. seq .. ',' .. string.sub(body, 2) end
  redis.call('ZADD', KEYS[2], seq, json)
end
return first
`;

/** Resolves to the first event's sequence number. */
export const appendEvents: Script<AppendEvents, number> = {
  action: "append events",
  lua: LUA,
  encode: ({ keys, worldId, bodies }) => ({
    keys: [keys.events(worldId, "seq"), keys.events(worldId, "log")],
    args: [...bodies],
  }),
  decode(reply) {
    const first = Number(reply);
    if (!Number.isInteger(first)) unexpectedReply("append events");
    return first;
  },
};
