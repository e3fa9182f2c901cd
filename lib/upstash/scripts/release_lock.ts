/** @module The script that releases a lease lock only while it holds the caller's token. */
import type { Lease } from "../../../src/ports/mod.ts";
import type { RedisKeys } from "../layout.ts";
import type { Script } from "./script.ts";

/** The lease to release. */
export interface ReleaseLock {
  keys: RedisKeys;
  lease: Lease;
}

// Deletes the key only if it still holds our token, in one atomic script: a GET then DEL from
// the client could delete a lease someone else took after ours expired.
const LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/** True when the lease was held and is now released. */
export const releaseLock: Script<ReleaseLock, boolean> = {
  action: "release a lock",
  lua: LUA,
  encode: ({ keys, lease }) => ({ keys: [keys.lock(lease.key)], args: [lease.token] }),
  decode: (reply) => Number(reply) === 1,
};
