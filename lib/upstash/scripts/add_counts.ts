/** @module The script that adds to counters of one hash together (usage and budget spend). */
import type { Script } from "./script.ts";

/** The hash, the increments by field, and how long the hash lives after (ms; none: forever). */
export interface AddCounts {
  key: string;
  increments: readonly (readonly [field: string, by: number])[];
  expireAfterMs?: number;
}

// KEYS: the hash. ARGV: expiry in ms (0: none), then field, increment, field, increment, ….
// Atomic, so a reader sees every counter of one record moved or none; a script rather than
// MULTI/EXEC, so it shares the stores' pipelined request (a transaction is a request of its own).
const LUA = `
for i = 2, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
end
local ms = tonumber(ARGV[1])
if ms > 0 then redis.call('PEXPIRE', KEYS[1], ms) end
return 1
`;

/** Adds the increments to the hash's fields in one atomic step. */
export const addCounts: Script<AddCounts, void> = {
  action: "add to counters",
  lua: LUA,
  encode: ({ key, increments, expireAfterMs }) => ({
    keys: [key],
    args: [
      String(Math.max(0, Math.ceil(expireAfterMs ?? 0))),
      ...increments.flatMap(([field, by]) => [field, String(Math.round(by))]),
    ],
  }),
  decode: () => undefined,
};
