/** @module The script that extends a lease lock only while it holds the caller's token. */
import type { Lease } from "../../../src/ports/mod.ts";
import type { RedisKeys } from "../layout.ts";
import type { Script } from "./script.ts";

/** The lease to renew, and for how long. */
export interface RenewLock {
  keys: RedisKeys;
  lease: Lease;
  ttlMs: number;
}

// Extends the key's expiry only if it still holds our token, atomically.
const LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

/** True when the lease was held and now expires `ttlMs` from now. */
export const renewLock: Script<RenewLock, boolean> = {
  action: "renew a lock",
  lua: LUA,
  encode: ({ keys, lease, ttlMs }) => ({
    keys: [keys.lock(lease.key)],
    args: [lease.token, String(Math.max(1, Math.ceil(ttlMs)))],
  }),
  decode: (reply) => Number(reply) === 1,
};
