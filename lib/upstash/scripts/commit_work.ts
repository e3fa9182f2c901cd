/** @module The script that commits a unit of work: fences, claim and versions checked, then written. */
import { LeaseLostError } from "../../../src/domain/mod.ts";
import {
  claimTaken,
  type CommitRequest,
  type Committed,
  versionConflict,
} from "../../../src/ports/mod.ts";
import { encodeDocument, encodeValue, type RedisKeys, ttlArgument } from "../layout.ts";
import { unexpectedReply } from "../redis_calls.ts";
import type { Script } from "./script.ts";

/** A commit and the keys to write it under. */
export interface CommitWork {
  keys: RedisKeys;
  request: CommitRequest;
}

// KEYS: the fences' lock keys, the released leases' lock keys, the claim's key when ARGV[3] is 1
// or 2 and its counter's key when it is 2, then one document hash per write. ARGV: fence count,
// release count, claim flag, claim value, the fences' tokens, the released tokens, then per
// write: id, expected version, stored value, and last the claim's time to live in ms (0: kept;
// the counter's starts with its first count). Returns -i when fence i is not held, j when write
// j finds another version, "claimed" when the claim's key holds a value (all writing nothing),
// else {0, the counter's new value or 0}.
const LUA = `
local nf = tonumber(ARGV[1])
local nr = tonumber(ARGV[2])
local nc = tonumber(ARGV[3])
for i = 1, nf do
  if redis.call('GET', KEYS[i]) ~= ARGV[4 + i] then return -i end
end
if nc > 0 and redis.call('EXISTS', KEYS[nf + nr + 1]) == 1 then return 'claimed' end
local d = nf + nr + nc
local a = 4 + nf + nr
local n = #KEYS - d
for j = 1, n do
  local current = redis.call('HGET', KEYS[d + j], ARGV[a + 3 * j - 2])
  local version = 0
  if current then version = tonumber(string.match(current, '^(%d+):')) end
  if version ~= tonumber(ARGV[a + 3 * j - 1]) then return j end
end
for j = 1, n do redis.call('HSET', KEYS[d + j], ARGV[a + 3 * j - 2], ARGV[a + 3 * j]) end
local ttl = ARGV[#ARGV]
if nc > 0 and ttl ~= '0' then redis.call('SET', KEYS[nf + nr + 1], ARGV[4], 'PX', ttl)
elseif nc > 0 then redis.call('SET', KEYS[nf + nr + 1], ARGV[4]) end
local count = 0
if nc == 2 then count = redis.call('INCR', KEYS[nf + nr + 2]) end
if count == 1 and ttl ~= '0' then redis.call('PEXPIRE', KEYS[nf + nr + 2], ttl) end
for i = 1, nr do
  if redis.call('GET', KEYS[nf + i]) == ARGV[4 + nf + i] then redis.call('DEL', KEYS[nf + i]) end
end
return {0, count}
`;

/** Writes every document and the claim and releases the leases, all or nothing. */
export const commitWork: Script<CommitWork, Committed> = {
  action: "commit work",
  lua: LUA,
  encode({ keys, request }) {
    const { documents, fences, release, claim } = request;
    return {
      keys: [
        ...[...fences, ...release].map((lease) => keys.lock(lease.key)),
        ...(claim ? [keys.idempotency(claim.scope, claim.key)] : []),
        ...(claim?.counter ? [keys.idempotency(claim.scope, claim.counter)] : []),
        ...documents.map((w) => keys.documents(w.key.collection, w.key.scope)),
      ],
      args: [
        String(fences.length),
        String(release.length),
        claim ? (claim.counter ? "2" : "1") : "0",
        claim ? encodeValue(claim.value) : "",
        ...[...fences, ...release].map((lease) => lease.token),
        ...documents.flatMap((w) => [
          w.key.id,
          String(w.expectedVersion),
          encodeDocument(w.expectedVersion + 1, w.value),
        ]),
        String(ttlArgument(claim)),
      ],
    };
  },
  decode(reply, { request: { claim, fences, documents } }) {
    if (reply === "claimed" && claim) throw claimTaken(claim);
    if (Array.isArray(reply) && Number(reply[0]) === 0) {
      return { count: claim?.counter ? Number(reply[1]) : null };
    }
    const code = Number(reply);
    if (!Number.isInteger(code) || code === 0) unexpectedReply("commit work");
    if (code < 0) throw new LeaseLostError(fences[-code - 1].key);
    throw versionConflict(documents[code - 1].key);
  },
};
