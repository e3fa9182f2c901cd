/** @module The script that replaces a document if it still has the version read (compare-and-set). */
import { LeaseLostError } from "../../../src/domain/mod.ts";
import type { DocumentKey, Lease, Versioned } from "../../../src/ports/mod.ts";
import { encodeDocument, type RedisKeys } from "../layout.ts";
import { unexpectedReply } from "../redis_calls.ts";
import type { Script } from "./script.ts";

/** The replacement. */
export interface ReplaceDocument<T> {
  keys: RedisKeys;
  key: DocumentKey;
  value: T;
  expectedVersion: number;
  fence?: Lease;
}

// Redis runs a script without interleaving any other command, so the version check and the
// write cannot be split by a concurrent writer. KEYS: the hash, the fence's lock key. ARGV: id,
// expected version, new value, the fence's token ("" for none). Returns -1 when the fence is not
// held, 0 on a version mismatch, else the new version.
const LUA = `
if ARGV[4] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[4] then return -1 end
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 0 end
local version = tonumber(string.match(current, '^(%d+):'))
if version ~= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return version + 1
`;

/** The document as replaced, or null when it is missing or has another version. */
export function replaceDocument<T>(): Script<ReplaceDocument<T>, Versioned<T> | null> {
  return {
    action: "replace a document",
    lua: LUA,
    encode: ({ keys, key, value, expectedVersion, fence }) => ({
      keys: [keys.documents(key.collection, key.scope), keys.lock(fence?.key ?? "-")],
      args: [
        key.id,
        String(expectedVersion),
        encodeDocument(expectedVersion + 1, value),
        fence?.token ?? "",
      ],
    }),
    decode(reply, { key, value, fence }) {
      const next = Number(reply);
      if (!Number.isInteger(next)) unexpectedReply("replace a document");
      if (next < 0) throw new LeaseLostError(fence!.key);
      return next === 0 ? null : { id: key.id, value, version: next };
    },
  };
}
