/** @module The script that creates a document while the writer holds its fence. */
import { LeaseLostError } from "../../../src/domain/mod.ts";
import type { DocumentKey, Lease } from "../../../src/ports/mod.ts";
import { encodeDocument, type RedisKeys } from "../layout.ts";
import type { Script } from "./script.ts";

/** The document to create. */
export interface CreateDocumentFenced {
  keys: RedisKeys;
  key: DocumentKey;
  value: unknown;
  fence: Lease;
}

// KEYS: the hash, the fence's lock key. ARGV: id, value, the fence's token. Returns -1 when the
// fence is not held, 0 when the document exists, 1 when created.
const LUA = `
if redis.call('GET', KEYS[2]) ~= ARGV[3] then return -1 end
return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
`;

/** True when created, false when the document exists; throws when the fence is lost. */
export const createDocumentFenced: Script<CreateDocumentFenced, boolean> = {
  action: "create a document",
  lua: LUA,
  encode: ({ keys, key, value, fence }) => ({
    keys: [keys.documents(key.collection, key.scope), keys.lock(fence.key)],
    args: [key.id, encodeDocument(1, value), fence.token],
  }),
  decode(reply, { fence }) {
    if (Number(reply) < 0) throw new LeaseLostError(fence.key);
    return Number(reply) === 1;
  },
};
