/** @module The script that claims an idempotency key: first write wins. */
import type { Claim, KeepOptions } from "../../../src/ports/mod.ts";
import { encodeValue, type RedisKeys, ttlArgument } from "../layout.ts";
import { unexpectedReply } from "../redis_calls.ts";
import type { Script } from "./script.ts";

/** The key to claim and the value to store when it is free. */
export interface ClaimKey<T> {
  keys: RedisKeys;
  scope: string;
  key: string;
  value: T;
  keep?: KeepOptions;
}

// SET NX and the read of the winner in one atomic script, so the caller that loses the race
// gets exactly the value that won, in one round trip. ARGV[2]: the time to live in ms, 0 none.
const LUA = `
local current = redis.call('GET', KEYS[1])
if current then return {0, current} end
if ARGV[2] ~= '0' then
  redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[1], 'NX')
end
return {1, ARGV[1]}
`;

/** Stores the value unless the key holds one; answers the value that won. */
export function claimKey<T>(): Script<ClaimKey<T>, Claim<T>> {
  return {
    action: "claim an idempotency key",
    lua: LUA,
    encode: ({ keys, scope, key, value, keep }) => ({
      keys: [keys.idempotency(scope, key)],
      args: [encodeValue(value), String(ttlArgument(keep))],
    }),
    decode(reply) {
      if (!Array.isArray(reply) || reply.length !== 2) unexpectedReply("claim an idempotency key");
      return { created: Number(reply[0]) === 1, value: JSON.parse(String(reply[1])) as T };
    },
  };
}
